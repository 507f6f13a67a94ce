{{/*
Client security of one cluster, from Strimzi's `tls` (ClientTls) and `authentication` (KafkaClientAuthentication:
tls with certificateAndKey, scram-sha-256, scram-sha-512, plain). Secrets stay in Secrets: the pod mounts the
authentication Secret at /etc/replikafka/secrets/<alias> and the CA Secret at /etc/replikafka/certs/<alias>, and
mm2.properties names their files, through the directory config provider for anything secret, never a value.
The settings are Java client names (they work for Java MirrorMaker 2 as well); replikafka maps them for librdkafka.
*/}}

{{/* The Secret a cluster's authentication reads (password or certificate and key); "" without authentication. */}}
{{- define "replikafka.authSecret" -}}
{{- $auth := .authentication | default dict -}}
{{- if eq ($auth.type | default "") "tls" -}}
{{- $auth.certificateAndKey.secretName -}}
{{- else if $auth.type -}}
{{- $auth.passwordSecret.secretName -}}
{{- end -}}
{{- end -}}

{{/* A volume name from an alias: aliases may hold "_" and capitals, volume names are DNS labels. */}}
{{- define "replikafka.volumeSuffix" -}}
{{- . | lower | replace "_" "-" -}}
{{- end -}}

{{/* `prefix`: the alias and a dot in mm2.properties. The JAAS username is quoted, so `"` and `\` are escaped. */}}
{{- define "replikafka.clusterSecurity" -}}
{{- $c := .cluster -}}
{{- $p := .prefix -}}
{{- $tls := and $c.tls $c.tls.trustedCertificates -}}
{{- $auth := $c.authentication | default dict -}}
{{- $type := $auth.type | default "" | lower -}}
{{- $secrets := printf "/etc/replikafka/secrets/%s" $c.alias -}}
{{- if has $type (list "scram-sha-256" "scram-sha-512" "plain") }}
{{ $p }}security.protocol = {{ ternary "SASL_SSL" "SASL_PLAINTEXT" (not (empty $tls)) }}
{{ $p }}sasl.mechanism = {{ $type | upper }}
{{- $module := ternary "org.apache.kafka.common.security.plain.PlainLoginModule" "org.apache.kafka.common.security.scram.ScramLoginModule" (eq $type "plain") }}
{{- $user := $auth.username | replace "\\" "\\\\" | replace "\"" "\\\"" }}
{{ $p }}sasl.jaas.config = {{ $module }} required username="{{ $user }}" password="${directory:{{ $secrets }}:{{ $auth.passwordSecret.password }}}";
{{- else if or (eq $type "tls") $tls }}
{{ $p }}security.protocol = SSL
{{- end }}
{{- if eq $type "tls" }}
{{- /* Java's PEM key store given as text (KIP-651): Strimzi's user Secret holds the two PEM files. */}}
{{ $p }}ssl.keystore.type = PEM
{{ $p }}ssl.keystore.certificate.chain = ${directory:{{ $secrets }}:{{ $auth.certificateAndKey.certificate }}}
{{ $p }}ssl.keystore.key = ${directory:{{ $secrets }}:{{ $auth.certificateAndKey.key }}}
{{- end }}
{{- if $tls }}
{{ $p }}ssl.truststore.type = PEM
{{ $p }}ssl.truststore.location = /etc/replikafka/certs/{{ $c.alias }}/{{ (first $c.tls.trustedCertificates).certificate }}
{{- end }}
{{- end -}}
