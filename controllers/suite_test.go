package controllers_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

// The suite runs against a real kube-apiserver and etcd built from their Go
// modules (hack/control-plane.sh), so CEL rules, server-side apply and RBAC
// behave exactly as in a cluster.
var (
	suite     = framework.NewSuite("Controllers Suite", framework.ControlPlaneOptions{})
	ctx       = suite.Ctx
	k8sClient = suite.API
)

func TestControllers(t *testing.T) { suite.Run(t, 30*time.Second, 100*time.Millisecond) }
