# Builds the manager image with a Docker engine. `make image` builds the same
# image without one (hack/image, go-containerregistry): the same binary from
# the same sources and flags, the same layout (scratch, /manager, user
# 65532:65532), plus OCI labels and fixed timestamps so its digest is
# reproducible. Keep the go build flags here and in hack/image/build.go equal.
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
COPY go.mod go.sum ./
# The API is its own module, which go.mod replaces with ./api.
COPY api/ api/
RUN go mod download
COPY main.go main.go
COPY controllers/ controllers/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -buildvcs=false -o manager .

# A static binary needs no base image. It runs as a non-root user; the chart
# also runs it with a read-only root filesystem and every capability dropped.
FROM scratch
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532
ENTRYPOINT ["/manager"]
