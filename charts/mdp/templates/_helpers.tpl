{{/*
Names. The release's objects are <fullname>-<component>; fullname is the release name when it already
contains the chart name, else <release>-<chart> (the usual Helm convention).
*/}}
{{- define "mdp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mdp.fullname" -}}
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

{{/* <fullname>-<component>; call with (dict "root" $ "component" "auth"). */}}
{{- define "mdp.componentName" -}}
{{- printf "%s-%s" (include "mdp.fullname" .root | trunc 45 | trimSuffix "-") .component }}
{{- end }}

{{- define "mdp.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels selecting one component's pods; (dict "root" $ "component" "auth"). */}}
{{- define "mdp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mdp.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every object's labels; (dict "root" $ "component" "auth"). */}}
{{- define "mdp.labels" -}}
helm.sh/chart: {{ include "mdp.chart" .root }}
{{ include "mdp.selectorLabels" . }}
app.kubernetes.io/part-of: mdp
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "mdp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mdp.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret holding DATABASE_URL and the keys: the chart's, or the one named in secrets.existingSecret. */}}
{{- define "mdp.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- printf "%s-secrets" (include "mdp.fullname" .) }}
{{- end }}
{{- end }}

{{/* <registry>/<repository>:<tag>; (dict "root" $ "values" .Values.auth). */}}
{{- define "mdp.image" -}}
{{- $tag := .values.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- printf "%s/%s:%s" .root.Values.image.registry .values.image.repository $tag }}
{{- end }}

{{/*
Base URL of filings-reader's public document links: filingsReader.files.publicBaseUrl, or the first
Ingress host (https when the Ingress has TLS), or the first HTTPRoute host name (https: the chart cannot
see the Gateway's listeners; set publicBaseUrl for a plain-HTTP one).
*/}}
{{- define "mdp.filesBaseUrl" -}}
{{- if .Values.filingsReader.files.publicBaseUrl }}
{{- .Values.filingsReader.files.publicBaseUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts }}
{{- printf "%s://%s" (ternary "https" "http" (gt (len .Values.ingress.tls) 0)) (index .Values.ingress.hosts 0).host }}
{{- else if and .Values.httpRoute.enabled .Values.httpRoute.hostnames }}
{{- printf "https://%s" (index .Values.httpRoute.hostnames 0) }}
{{- else }}
{{- printf "http://localhost:%d" (int .Values.filingsReader.files.port) }}
{{- end }}
{{- end }}

{{/*
The daily import's CronJob, <fullname>-data-import in at most 52 characters: the controller names each
run's Job after it with an 11-character suffix, and a Job's name has at most 63.
*/}}
{{- define "mdp.dataImportName" -}}
{{- printf "%s-data-import" (include "mdp.fullname" . | trunc 40 | trimSuffix "-") }}
{{- end }}

{{/* The headless Service whose DNS names address each ledger shard. */}}
{{- define "mdp.ledgerHeadless" -}}
{{- printf "%s-headless" (include "mdp.componentName" (dict "root" . "component" "quota-ledger")) }}
{{- end }}

{{/*
The gateway's LEDGER_ADDR: every shard's stable address in shard order,
<fullname>-quota-ledger-<i>.<fullname>-quota-ledger-headless.<namespace>.svc.<clusterDomain>:<port>
for i in 0..shards-1. Pod i of the StatefulSet is shard i, so the gateway's sha1(account) mod n
reaches the pod that owns the account.
*/}}
{{- define "mdp.ledgerAddr" -}}
{{- $statefulSet := include "mdp.componentName" (dict "root" . "component" "quota-ledger") }}
{{- $headless := include "mdp.ledgerHeadless" . }}
{{- $addrs := list }}
{{- range $i := until (int .Values.quotaLedger.shards) }}
{{- $addrs = append $addrs (printf "%s-%d.%s.%s.svc.%s:%d" $statefulSet $i $headless $.Release.Namespace $.Values.clusterDomain (int $.Values.quotaLedger.grpcPort)) }}
{{- end }}
{{- join "," $addrs }}
{{- end }}

{{/*
A gRPC service's in-cluster address for the gateway; (dict "root" $ "component" "auth" "port" 50051).
It names the service's headless Service through the dns resolver, so the gateway's channel sees every
ready pod and spreads calls round robin over them (a ClusterIP would pin each gateway pod to one
data pod for the life of its HTTP/2 connection). Servers cap connection age, so the gateway
re-resolves and picks up pods the autoscaler adds.
*/}}
{{- define "mdp.grpcAddr" -}}
{{- printf "dns:///%s-grpc.%s.svc.%s:%d" (include "mdp.componentName" (dict "root" .root "component" .component)) .root.Release.Namespace .root.Values.clusterDomain (int .port) }}
{{- end }}

{{/* Pod annotations: Prometheus scrape annotations on the ops port, config checksums, user annotations. */}}
{{- define "mdp.podAnnotations" -}}
{{- if .root.Values.metrics.scrapeAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .opsPort | int | quote }}
prometheus.io/path: /metrics
{{- end }}
checksum/config: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
{{- if not .root.Values.secrets.existingSecret }}
checksum/secrets: {{ include (print .root.Template.BasePath "/secret.yaml") .root | sha256sum }}
{{- end }}
{{- with .root.Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* One env entry read from the platform Secret; (dict "root" $ "key" "DATABASE_URL"). */}}
{{- define "mdp.secretEnv" -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "mdp.secretName" .root }}
      key: {{ .key }}
{{- end }}

{{/* Liveness, readiness and start-up probes on the ops port (/healthz, /readyz). */}}
{{- define "mdp.probes" -}}
startupProbe:
  httpGet:
    path: /healthz
    port: ops
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /healthz
    port: ops
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: ops
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end }}

{{/* Waits before SIGTERM so that endpoints and load balancers stop sending new work first. */}}
{{- define "mdp.lifecycle" -}}
{{- if gt (int .Values.config.preStopSleepSeconds) 0 }}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ .Values.config.preStopSleepSeconds | int | quote }}]
{{- end }}
{{- end }}

{{/* Scheduling and pod-level settings shared by every workload; (dict "root" $ "values" .Values.auth). */}}
{{- define "mdp.podSpecCommon" -}}
serviceAccountName: {{ include "mdp.serviceAccountName" .root }}
automountServiceAccountToken: false
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: {{ .values.terminationGracePeriodSeconds }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The Deployment of a gRPC service that owns a schema (auth and the three data services). Call with
(dict "root" $ "component" "equities-data" "values" .Values.equitiesData "secretKeys" (list "DATABASE_URL"))
and optionally "ports" (list of dicts name/port: more container ports) and "env" (list of dicts
name/value: more variables).
*/}}
{{- define "mdp.grpcDeployment" -}}
{{- $values := .values }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "mdp.componentName" . }}
  labels:
    {{- include "mdp.labels" . | nindent 4 }}
spec:
  {{- $autoscaled := false }}
  {{- if hasKey $values "autoscaling" }}
  {{- $autoscaled = $values.autoscaling.enabled }}
  {{- end }}
  {{- if not $autoscaled }}
  replicas: {{ $values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "mdp.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "mdp.labels" . | nindent 8 }}
      annotations:
        {{- include "mdp.podAnnotations" (dict "root" .root "opsPort" $values.opsPort) | nindent 8 }}
    spec:
      {{- include "mdp.podSpecCommon" . | nindent 6 }}
      containers:
        - name: {{ .component }}
          image: {{ include "mdp.image" . }}
          imagePullPolicy: {{ .root.Values.image.pullPolicy }}
          ports:
            - name: grpc
              containerPort: {{ $values.grpcPort }}
              protocol: TCP
            - name: ops
              containerPort: {{ $values.opsPort }}
              protocol: TCP
            {{- range .ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ include "mdp.componentName" (dict "root" .root "component" "common") }}
          env:
            {{- range .env }}
            - name: {{ .name }}
              value: {{ .value | toString | quote }}
            {{- end }}
            - name: GRPC_PORT
              value: {{ $values.grpcPort | int | quote }}
            - name: OPS_PORT
              value: {{ $values.opsPort | int | quote }}
            - name: DB_SCHEMA
              value: {{ $values.dbSchema | quote }}
            {{- range $key := .secretKeys }}
            {{- include "mdp.secretEnv" (dict "root" $.root "key" $key) | nindent 12 }}
            {{- end }}
            {{- with $values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- include "mdp.probes" . | nindent 10 }}
          {{- include "mdp.lifecycle" .root | nindent 10 }}
          resources:
            {{- toYaml $values.resources | nindent 12 }}
          securityContext:
            {{- toYaml .root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
{{- end }}

{{/*
A ClusterIP Service in front of a gRPC service and its headless twin `<name>-grpc`; (dict "root" $ "component" "auth" "values" .Values.auth),
optionally "ports" (list of dicts name/port: more ports, plain HTTP).
*/}}
{{- define "mdp.grpcService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "mdp.componentName" . }}
  labels:
    {{- include "mdp.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "mdp.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ .values.grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
    {{- range .ports }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .name }}
      protocol: TCP
      appProtocol: http
    {{- end }}
---
# Headless: its DNS name lists every ready pod, for the gateway's round-robin channel (mdp.grpcAddr).
apiVersion: v1
kind: Service
metadata:
  name: {{ include "mdp.componentName" . }}-grpc
  labels:
    {{- include "mdp.labels" . | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "mdp.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ .values.grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
{{- end }}
