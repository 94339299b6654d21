// A stand-in for the Tencent Cloud SDK's vpc module, which the Go module proxy
// refuses to serve at the version flannel v0.28.10 requires (v1.3.188). See
// hack/tools/flannel/README.md. It has no dependencies.
module github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc

go 1.22
