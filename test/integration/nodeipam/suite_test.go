// Package nodeipam_test runs the operator's NodeIPAM, with the real lifecycle
// controller, in-process against a real kube-apiserver and etcd built from
// their Go modules (test/framework), and checks every scenario with the
// invariant checker of test/invariants.
package nodeipam_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

// The specs create hundreds of nodes at once; the framework's client limits
// keep the test client from being the bottleneck.
var (
	suite     = framework.NewSuite("NodeIPAM Suite", framework.ControlPlaneOptions{})
	suiteCtx  = suite.Ctx
	k8sClient = suite.API
)

func TestNodeIPAM(t *testing.T) { suite.Run(t, 60*time.Second, 100*time.Millisecond) }
