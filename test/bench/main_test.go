package bench

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestMain silences klog: kube-controller-manager's constructor logs two
// lines per call, which would bury the benchmark output.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
