/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package realconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/kubernetes/cmd/kube-proxy/app"
	kubeproxyconfig "k8s.io/kubernetes/pkg/proxy/apis/config"
	proxyconfigscheme "k8s.io/kubernetes/pkg/proxy/apis/config/scheme"

	adapterkubeproxy "podnetwork.io/operator/internal/adapters/kubeproxy"
)

const (
	// kubeProxyChildEnv makes the test binary run kube-proxy's command.
	kubeProxyChildEnv = "REALCONFIG_AS_KUBE_PROXY"
	// refusalPrefix marks the child's error line in its stderr, which also
	// carries kube-proxy's own log lines.
	refusalPrefix = "realconfig: kube-proxy refused the file: "
	// lenientWarning is what loadConfig logs when strict decoding fails and
	// the lenient decoder accepts the file (cmd/kube-proxy/app/options.go).
	lenientWarning = "Using lenient decoding as strict decoding failed"
)

// runKubeProxy is the child side: kube-proxy's real command. With
// --write-config-to it loads, defaults and validates --config exactly as at
// start, writes the configuration it would run, and returns instead of
// proxying.
func runKubeProxy(args []string) int {
	cmd := app.NewProxyCommand()
	cmd.SetArgs(args)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, refusalPrefix+err.Error())
		return 1
	}
	return 0
}

// kubeProxyLoad is what kube-proxy made of a file.
type kubeProxyLoad struct {
	// ClusterCIDRs as kube-proxy runs them (detectLocal.clusterCIDRs).
	ClusterCIDRs []string
	// Lenient reports that strict decoding failed (unknown or duplicate
	// fields) and kube-proxy started with the lenient decoder's result.
	Lenient bool
	// Warning is the strict decoding error kube-proxy logged, if Lenient.
	Warning string
}

// loadKubeProxy runs kube-proxy v1.37.2's own configuration loading on path
// in a child process. A refusal is an error holding kube-proxy's message.
func loadKubeProxy(path, scratch string) (kubeProxyLoad, error) {
	self, err := os.Executable()
	if err != nil {
		return kubeProxyLoad{}, fmt.Errorf("finding the test binary: %w", err)
	}
	written := filepath.Join(scratch, "written.yaml")
	cmd := exec.Command(self, "--config="+path, "--write-config-to="+written)
	cmd.Env = append(os.Environ(), kubeProxyChildEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	log := stderr.String()
	if runErr != nil {
		if msg, ok := lineAfter(log, refusalPrefix); ok {
			return kubeProxyLoad{}, errors.New(msg)
		}
		return kubeProxyLoad{}, fmt.Errorf("kube-proxy child failed without a refusal (%w):\n%s", runErr, log)
	}
	out, err := os.ReadFile(written)
	if err != nil {
		return kubeProxyLoad{}, fmt.Errorf("reading the configuration kube-proxy wrote: %w", err)
	}
	obj, _, err := proxyconfigscheme.Codecs.UniversalDecoder().Decode(out, nil, nil)
	if err != nil {
		return kubeProxyLoad{}, fmt.Errorf("decoding the configuration kube-proxy wrote: %w", err)
	}
	cfg, ok := obj.(*kubeproxyconfig.KubeProxyConfiguration)
	if !ok {
		return kubeProxyLoad{}, fmt.Errorf("kube-proxy wrote a %T", obj)
	}
	load := kubeProxyLoad{ClusterCIDRs: cfg.DetectLocal.ClusterCIDRs}
	if line, ok := lineAfter(log, lenientWarning); ok {
		// klog writes: "Using lenient ... failed" err="strict decoding error: ..."
		load.Lenient, load.Warning = true, strings.TrimPrefix(strings.TrimLeft(line, `" `), "err=")
	}
	return load, nil
}

// checkKubeProxy loads a file with kube-proxy and checks that the adapter
// reads the same clusterCIDR from it.
func checkKubeProxy(t *testing.T, path, text string) error {
	load, err := loadKubeProxy(path, t.TempDir())
	if err != nil {
		return err
	}
	if load.Lenient {
		t.Logf("kube-proxy starts with the lenient decoder and logs: %s", load.Warning)
	}
	ours, err := adapterkubeproxy.Parse(text)
	if err != nil {
		t.Errorf("kube-proxy loads the file but the adapter's Parse refuses it: %v", err)
		return nil
	}
	// kube-proxy splits clusterCIDR on commas (v1alpha1 conversion).
	var reads []string
	if ours.ClusterCIDR != "" {
		reads = strings.Split(ours.ClusterCIDR, ",")
	}
	if !slices.Equal(load.ClusterCIDRs, reads) {
		t.Errorf("kube-proxy runs clusterCIDRs %q, the adapter reads %q", load.ClusterCIDRs, reads)
	}
	return nil
}

// lineAfter returns the rest of the last line of log that contains marker.
func lineAfter(log, marker string) (string, bool) {
	i := strings.LastIndex(log, marker)
	if i < 0 {
		return "", false
	}
	rest := log[i+len(marker):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest), true
}
