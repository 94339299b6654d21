# Builds the manager image. Needs a Docker engine (not available on the
# project's build machines; `make build` builds the same binary without one).
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
COPY go.mod go.sum ./
RUN go mod download
COPY main.go main.go
COPY api/ api/
COPY controllers/ controllers/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -a -o manager .

# A static binary needs no base image. It runs as a non-root user; the chart
# also runs it with a read-only root filesystem and every capability dropped.
FROM scratch
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532
ENTRYPOINT ["/manager"]
