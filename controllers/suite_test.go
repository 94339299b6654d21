package controllers_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"podnetwork.io/operator/test/framework"
)

// The suite runs against a real kube-apiserver and etcd built from their Go
// modules (hack/control-plane.sh), so CEL rules, server-side apply and RBAC
// behave exactly as in a cluster.
var (
	controlPlane *framework.ControlPlane
	k8sClient    framework.API
	ctx          context.Context
)

func TestControllers(t *testing.T) {
	framework.RunSuite(t, "Controllers Suite", 30*time.Second, 100*time.Millisecond)
}

var _ = BeforeSuite(func() {
	ctx, controlPlane = framework.StartSuite(framework.ControlPlaneOptions{})
	k8sClient = framework.NewAPI(ctx, controlPlane.Client)
})
