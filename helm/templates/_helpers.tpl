{{- define "replikafka.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "replikafka.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "replikafka.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "replikafka.selectorLabels" -}}
app.kubernetes.io/name: {{ include "replikafka.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "replikafka.labels" -}}
{{ include "replikafka.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "replikafka.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "replikafka.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Client security lines of one cluster: secrets are referenced, never inlined. */}}
{{- define "replikafka.clusterSecurity" -}}
{{- $alias := .alias -}}
{{- $tls := and .tls .tls.trustedCertificates -}}
{{- $auth := .authentication | default dict -}}
{{- if $auth.type }}
{{ $alias }}.security.protocol = {{ ternary "SASL_SSL" "SASL_PLAINTEXT" (not (empty $tls)) }}
{{ $alias }}.sasl.mechanism = {{ $auth.type | upper }}
{{- $module := ternary "org.apache.kafka.common.security.plain.PlainLoginModule" "org.apache.kafka.common.security.scram.ScramLoginModule" (eq ($auth.type | lower) "plain") }}
{{ $alias }}.sasl.jaas.config = {{ $module }} required username="{{ $auth.username }}" password="${directory:/etc/replikafka/secrets/{{ $alias }}:{{ $auth.passwordSecret.password }}}";
{{- else if $tls }}
{{ $alias }}.security.protocol = SSL
{{- end }}
{{- if $tls }}
{{ $alias }}.ssl.truststore.type = PEM
{{ $alias }}.ssl.truststore.location = /etc/replikafka/certs/{{ $alias }}/{{ (first .tls.trustedCertificates).certificate }}
{{- end }}
{{- end -}}
