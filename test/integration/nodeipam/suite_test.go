// Package nodeipam_test runs the operator's NodeIPAM, with the real lifecycle
// controller, in-process against a real kube-apiserver and etcd built from
// their Go modules (test/framework), and checks every scenario with the
// invariant checker of test/invariants.
package nodeipam_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"podnetwork.io/operator/test/framework"
)

var (
	controlPlane *framework.ControlPlane
	k8sClient    framework.API
	suiteCtx     context.Context
)

func TestNodeIPAM(t *testing.T) {
	framework.RunSuite(t, "NodeIPAM Suite", 60*time.Second, 100*time.Millisecond)
}

var _ = BeforeSuite(func() {
	// The specs create hundreds of nodes at once; the framework's client
	// limits keep the test client from being the bottleneck.
	suiteCtx, controlPlane = framework.StartSuite(framework.ControlPlaneOptions{})
	k8sClient = framework.NewAPI(suiteCtx, controlPlane.Client)
})
