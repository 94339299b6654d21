package realconfig

import (
	"os"
	"testing"
)

// TestMain lets the test binary play kube-proxy: kube-proxy's command keeps
// its state in globals (feature gates, logging, flags), so each file gets a
// fresh process, as on a node.
func TestMain(m *testing.M) {
	if os.Getenv(kubeProxyChildEnv) != "" {
		os.Exit(runKubeProxy(os.Args[1:]))
	}
	os.Exit(m.Run())
}
