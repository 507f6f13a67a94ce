{{/*
replikafka's alert rules (a Prometheus rules file's `groups:`), thresholds from .Values.monitoring.thresholds.
The same rules ship as docs/monitoring/replikafka-rules.yaml (rendered with the default values; a test
checks they match): edit them here.
*/}}
{{- define "replikafka.rules" -}}
{{- $t := .Values.monitoring.thresholds -}}
groups:
  - name: replikafka
    rules:
      - alert: ReplikafkaConnectorFailed
        expr: max by (connector, source, target) (kafka_connect_connector_status{status="failed"}) > 0
        for: {{ $t.failedFor }}
        labels:
          severity: critical
        annotations:
          summary: {{`'Connector {{ $labels.connector }} is FAILED'`}}
          description: {{`'Connector {{ $labels.connector }} ({{ $labels.source }}->{{ $labels.target }}) has been FAILED for`}} {{ $t.failedFor }}{{`: see its status trace (GET /connectors/{{ $labels.connector }}/status).'`}}
      - alert: ReplikafkaTaskFailed
        expr: max by (connector, task, source, target) (kafka_connect_connector_task_status{status="failed"}) > 0
        for: {{ $t.failedFor }}
        labels:
          severity: critical
        annotations:
          summary: {{`'Task {{ $labels.connector }}-{{ $labels.task }} is FAILED'`}}
          description: {{`'Task {{ $labels.task }} of connector {{ $labels.connector }} ({{ $labels.source }}->{{ $labels.target }}) has been FAILED for`}} {{ $t.failedFor }}{{`; restart it once the cause is fixed.'`}}
      - alert: ReplikafkaLagRecords
        expr: sum by (source, target, topic) (kafka_connect_mirror_mirrorsourceconnector_offset_lag) > {{ $t.lagRecords }}
        for: {{ $t.lagFor }}
        labels:
          severity: warning
        annotations:
          summary: {{`'Replication of {{ $labels.topic }} is {{ $value }} records behind'`}}
          description: {{`'{{ $labels.source }}->{{ $labels.target }}: {{ $labels.topic }} has been more than`}} {{ $t.lagRecords }} {{`records behind its source for`}} {{ $t.lagFor }}{{`.'`}}
      - alert: ReplikafkaLagSeconds
        expr: |-
          (max by (source, target, topic) (kafka_connect_mirror_mirrorsourceconnector_record_age_ms) / 1000 > {{ $t.lagSeconds }})
          and on (source, target, topic) (sum by (source, target, topic) (kafka_connect_mirror_mirrorsourceconnector_offset_lag) > 0)
        for: {{ $t.lagFor }}
        labels:
          severity: warning
        annotations:
          summary: {{`'Replication of {{ $labels.topic }} is {{ $value }} s behind'`}}
          description: {{`'{{ $labels.source }}->{{ $labels.target }}: the records of {{ $labels.topic }} being copied are more than`}} {{ $t.lagSeconds }} {{`s old, with records still waiting, for`}} {{ $t.lagFor }}{{`.'`}}
      - alert: ReplikafkaCheckpointsStale
        expr: |-
          (time() - max by (source, target, group) (kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_timestamp_seconds))
          > on (source, target) group_left ()
          (max by (source, target) (kafka_connect_mirror_mirrorcheckpointconnector_emit_interval_seconds) * {{ $t.checkpointIntervals }})
        labels:
          severity: warning
        annotations:
          summary: {{`'Checkpoints of group {{ $labels.group }} are stale'`}}
          description: {{`'{{ $labels.source }}->{{ $labels.target }}: the newest checkpoint of group {{ $labels.group }} is older than`}} {{ $t.checkpointIntervals }} {{`x emit.checkpoints.interval.seconds ({{ $value }} s): fail-over would translate old offsets.'`}}
      - alert: ReplikafkaHeartbeatsMissing
        expr: time() - max by (source, target, upstream) (kafka_connect_mirror_mirrorsourceconnector_heartbeat_timestamp_seconds) > {{ mul $t.heartbeatMinutes 60 }}
        labels:
          severity: warning
        annotations:
          summary: {{`'No heartbeats from {{ $labels.upstream }}'`}}
          description: {{`'{{ $labels.source }}->{{ $labels.target }}: no heartbeat from upstream cluster {{ $labels.upstream }} for`}} {{ $t.heartbeatMinutes }} {{`minutes or more.'`}}
      - alert: ReplikafkaWorkersMissing
        expr: (count(count by (instance) (kafka_connect_worker_connector_count)) or vector(0)) < {{ .Values.replicas }}
        for: {{ $t.workersFor }}
        labels:
          severity: warning
        annotations:
          summary: 'Fewer replikafka workers than replicas'
          description: {{`'{{ $value }} worker(s) report metrics, fewer than the`}} {{ .Values.replicas }} {{`replicas, for`}} {{ $t.workersFor }}{{`.'`}}
{{- end -}}
