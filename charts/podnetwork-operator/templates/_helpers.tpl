{{/* Chart name, truncated to the 63 characters a label value allows. */}}
{{- define "podnetwork-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name, used for cluster-scoped objects too. */}}
{{- define "podnetwork-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Common labels. */}}
{{- define "podnetwork-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "podnetwork-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels: stable across upgrades. */}}
{{- define "podnetwork-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "podnetwork-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The operator image: by digest when one is given, else by tag (the chart's appVersion by default). */}}
{{- define "podnetwork-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The ServiceAccount the operator runs as. */}}
{{- define "podnetwork-operator.serviceAccountName" -}}
{{- default (include "podnetwork-operator.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{/* Name of the metrics port, container's and Service's: its scheme. */}}
{{- define "podnetwork-operator.metricsPortName" -}}
{{- if .Values.metrics.secure }}https{{ else }}http{{ end }}
{{- end }}

{{/* Where the metrics serving certificate of metrics.certSecret is mounted. */}}
{{- define "podnetwork-operator.metricsCertDir" -}}
/var/run/podnetwork-operator/metrics-certs
{{- end }}

{{/* The operator's command-line flags, also used by `make demo`. */}}
{{- define "podnetwork-operator.args" -}}
- --leader-elect={{ .Values.leaderElection.enabled }}
- --leader-election-namespace={{ .Release.Namespace }}
- --leader-election-lease-duration={{ .Values.leaderElection.leaseDuration }}
- --leader-election-renew-deadline={{ .Values.leaderElection.renewDeadline }}
- --leader-election-retry-period={{ .Values.leaderElection.retryPeriod }}
- --metrics-bind-address=:{{ .Values.metricsPort }}
- --metrics-secure={{ .Values.metrics.secure }}
{{- if and .Values.metrics.secure .Values.metrics.certSecret }}
- --metrics-cert-dir={{ include "podnetwork-operator.metricsCertDir" . }}
{{- end }}
- --health-probe-bind-address=:{{ .Values.healthPort }}
- --kube-api-qps={{ .Values.kubeAPI.qps }}
- --kube-api-burst={{ .Values.kubeAPI.burst }}
- --zap-log-level={{ .Values.logLevel }}
- --stall-after={{ .Values.stallAfter }}
- --enable-node-ipam={{ .Values.nodeIPAM.enabled }}
- --node-ipam-workers={{ .Values.nodeIPAM.workers }}
- --node-ipam-event-backoff={{ .Values.nodeIPAM.eventBackoff }}
- --node-ipam-max-event-backoff={{ .Values.nodeIPAM.maxEventBackoff }}
- --node-ipam-status-interval={{ .Values.nodeIPAM.statusInterval }}
- --node-ipam-primary-ip-family={{ .Values.nodeIPAM.primaryIPFamily }}
- --node-ipam-record-namespace={{ .Release.Namespace }}
- --enable-autoscaler={{ .Values.autoscaler.enabled }}
- --autoscaler-status-interval={{ .Values.autoscaler.statusInterval }}
- --drain-assist-poll-interval={{ .Values.drainAssist.pollInterval }}
- --enable-audit={{ .Values.audit.enabled }}
- --audit-interval={{ .Values.audit.interval }}
- --audit-pod-ips={{ .Values.audit.podIPs }}
- --enable-kube-proxy-adapter={{ .Values.adapters.kubeProxy.enabled }}
- --kube-proxy-configmap={{ .Values.adapters.kubeProxy.configMap }}
- --kube-proxy-configmap-key={{ .Values.adapters.kubeProxy.configMapKey }}
- --kube-proxy-daemonset={{ .Values.adapters.kubeProxy.daemonSet }}
- --enable-flannel-adapter={{ .Values.adapters.flannel.enabled }}
- --flannel-configmap={{ .Values.adapters.flannel.configMap }}
- --flannel-configmap-key={{ .Values.adapters.flannel.configMapKey }}
- --flannel-daemonset={{ .Values.adapters.flannel.daemonSet }}
- --adapter-min-covering-prefix-ipv4={{ .Values.adapters.minCoveringPrefixIPv4 }}
- --adapter-min-covering-prefix-ipv6={{ .Values.adapters.minCoveringPrefixIPv6 }}
{{- range .Values.extraArgs }}
- {{ . }}
{{- end }}
{{- end }}
