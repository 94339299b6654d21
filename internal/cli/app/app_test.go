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

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// run runs the plugin with args and returns its exit code and output.
func run(t *testing.T, opts Options, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, &stdout, &stderr, opts)
	return code, stdout.String(), stderr.String()
}

// TestCommandLine covers what ends before the cluster is read; the
// commands themselves run against a real apiserver in test/integration/cli.
func TestCommandLine(t *testing.T) {
	kubeconfig := writeKubeconfig(t)
	tests := []struct {
		args             []string
		code             int
		inStdout, stderr string
	}{
		// Help goes to standard output and exits 0.
		{[]string{"--help"}, ExitOK, "Available Commands:", ""},
		{[]string{"-h"}, ExitOK, "Available Commands:", ""},
		{[]string{"help"}, ExitOK, "Available Commands:", ""},
		{[]string{"help", "plan"}, ExitOK, "kubectl podnetwork plan (-f FILE", ""},
		{[]string{"status", "--help"}, ExitOK, "--watch", ""},
		{[]string{"plan", "-h"}, ExitOK, "--remove", ""},
		{[]string{"--kubeconfig", kubeconfig, "check", "-h"}, ExitOK, "--stall-after", ""},
		// Usage errors: one line, where to look, exit 2, no usage dump.
		{[]string{"frobnicate"}, ExitUsage, "", "error: unknown command \"frobnicate\" for \"kubectl podnetwork\"\nSee 'kubectl podnetwork --help' for usage.\n"},
		{[]string{"stauts"}, ExitUsage, "", "error: unknown command \"stauts\" for \"kubectl podnetwork\" (did you mean status?)\nSee 'kubectl podnetwork --help' for usage.\n"},
		{[]string{"status", "extra"}, ExitUsage, "", "error: unexpected arguments: extra\nSee 'kubectl podnetwork status --help' for usage.\n"},
		{[]string{"status", "--no-such-flag"}, ExitUsage, "", "error: unknown flag: --no-such-flag\nSee 'kubectl podnetwork status --help' for usage.\n"},
		{[]string{"--no-such-flag", "check"}, ExitUsage, "", "error: unknown flag: --no-such-flag\nSee 'kubectl podnetwork --help' for usage.\n"},
		{[]string{"plan", "--add"}, ExitUsage, "", "error: flag needs an argument: --add\nSee 'kubectl podnetwork plan --help' for usage.\n"},
		{[]string{"check", "--stall-after", "soon"}, ExitUsage, "", "error: invalid argument \"soon\" for \"--stall-after\" flag: time: invalid duration \"soon\"\nSee 'kubectl podnetwork check --help' for usage.\n"},
		{[]string{"status", "-o", "xml"}, ExitUsage, "", "error: unable to match a printer suitable for the output format \"xml\", allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,template,templatefile,yaml\nSee 'kubectl podnetwork status --help' for usage.\n"},
		{[]string{"status", "-o", "jsonpath={.ranges[}"}, ExitUsage, "", "error: error parsing jsonpath {.ranges[}, unterminated array\nSee 'kubectl podnetwork status --help' for usage.\n"},
		{[]string{"check", "--kube-proxy-configmap", "kube-proxy"}, ExitUsage, "", "error: --kube-proxy-configmap \"kube-proxy\" is not namespace/name\nSee 'kubectl podnetwork check --help' for usage.\n"},
		{[]string{"status", "--request-timeout", "soon"}, ExitUsage, "", "error: --request-timeout \"soon\": Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)\nSee 'kubectl podnetwork status --help' for usage.\n"},
		{[]string{"plan"}, ExitUsage, "", "error: plan needs either -f FILE or --add/--remove\nSee 'kubectl podnetwork plan --help' for usage.\n"},
		{[]string{"plan", "-f", "x.yaml", "--add", "a=10.0.0.0/16"}, ExitUsage, "", "error: plan needs either -f FILE or --add/--remove\nSee 'kubectl podnetwork plan --help' for usage.\n"},
		// An unreadable -f file is a usage error, found before any request.
		{[]string{"plan", "-f", "/nonexistent/pn.yaml", "--kubeconfig", "/nonexistent/kubeconfig"}, ExitUsage, "", "error: reading /nonexistent/pn.yaml: open /nonexistent/pn.yaml: no such file or directory\nSee 'kubectl podnetwork plan --help' for usage.\n"},
		{[]string{"plan", "-f", writeFile(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\n")}, ExitUsage, "", "holds a ConfigMap, not a PodNetwork\n"},
		{[]string{"plan", "-f", writeFile(t, "bad.yaml", "spec:\n  rangez: []\n")}, ExitUsage, "", "is not a PodNetwork: error unmarshaling JSON: while decoding JSON: json: unknown field \"rangez\"\n"},
		// kubectl's global flags, before and after the command, reach the
		// kubeconfig loader.
		{[]string{"status", "--kubeconfig", "/nonexistent/kubeconfig"}, ExitFailed, "", "error: loading the kubeconfig: stat /nonexistent/kubeconfig: no such file or directory\n"},
		{[]string{"--kubeconfig", "/nonexistent/kubeconfig", "status"}, ExitFailed, "", "error: loading the kubeconfig: stat /nonexistent/kubeconfig: no such file or directory\n"},
		{[]string{"--kubeconfig", kubeconfig, "--context", "nosuch", "check"}, ExitFailed, "", "error: loading the kubeconfig: context \"nosuch\" does not exist\n"},
		{[]string{"check", "--kubeconfig", kubeconfig, "--cluster", "nosuch"}, ExitFailed, "", "error: loading the kubeconfig: cluster \"nosuch\" does not exist\n"},
		{[]string{"--kubeconfig", kubeconfig, "-s", "https://127.0.0.1:1", "status", "--request-timeout", "2s"}, ExitFailed, "", "127.0.0.1:1"},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(t, Options{}, tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.inStdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("Run(%q) = %d with\nstdout %q\nstderr %q\nwant %d, stdout with %q, stderr %q", tt.args, code, stdout, stderr, tt.code, tt.inStdout, tt.stderr)
		}
		if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); code == ExitUsage &&
			(len(lines) != 2 || !strings.HasPrefix(lines[0], "error: ") || !strings.HasPrefix(lines[1], "See 'kubectl podnetwork") || stdout != "") {
			t.Errorf("Run(%q): a usage error is not one line and a pointer to the help:\n%s", tt.args, stderr)
		}
		if code == ExitOK && stderr != "" {
			t.Errorf("Run(%q): help on standard error: %q", tt.args, stderr)
		}
	}
}

// TestNoCommand: the plugin alone is a usage error that prints the help,
// on standard error.
func TestNoCommand(t *testing.T) {
	code, stdout, stderr := run(t, Options{})
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "Available Commands:") {
		t.Errorf("Run() = %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestGlobalFlags: every kubectl global flag is accepted before and after
// the command.
func TestGlobalFlags(t *testing.T) {
	for _, flag := range [][]string{
		{"--kubeconfig", "k"}, {"--context", "c"}, {"--cluster", "c"}, {"--user", "u"}, {"--namespace", "n"}, {"-n", "n"},
		{"--server", "https://s"}, {"-s", "https://s"}, {"--token", "t"}, {"--as", "alice"}, {"--as-group", "g"}, {"--as-uid", "1"},
		{"--as-user-extra", "k=v"}, {"--certificate-authority", "ca"}, {"--client-certificate", "c"}, {"--client-key", "k"},
		{"--insecure-skip-tls-verify"}, {"--tls-server-name", "s"}, {"--request-timeout", "5s"}, {"--disable-compression"},
		{"--proxy-url", "http://p"}, {"--cache-dir", "d"}, {"-v", "1"}, {"--v", "0"}, {"--vmodule", "x=1"}, {"--warnings-as-errors"},
	} {
		for _, args := range [][]string{append(append([]string{}, flag...), "version"), append([]string{"version"}, flag...)} {
			if code, _, stderr := run(t, Options{}, args...); code != ExitOK {
				t.Errorf("Run(%q) = %d: %s", args, code, stderr)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	info := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "podnetwork.io/operator", Version: "v0.3.0"}, Settings: []debug.BuildSetting{
			{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"},
			{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-03-04T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, true
	}
	code, out, _ := run(t, Options{BuildInfo: info}, "version")
	if code != ExitOK || out != "kubectl-podnetwork v0.3.0, commit 0123456789abcdef (dirty), go1.26.0 linux/arm64\n" {
		t.Errorf("version = %d, %q", code, out)
	}
	code, out, _ = run(t, Options{BuildInfo: info}, "version", "-o", "json")
	var v map[string]string
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != ExitOK {
		t.Fatalf("version -o json = %d, %q: %v", code, out, err)
	}
	want := map[string]string{"apiVersion": "cli.podnetwork.io/v1alpha1", "kind": "Version", "version": "v0.3.0", "gitCommit": "0123456789abcdef",
		"gitTreeState": "dirty", "commitTime": "2026-03-04T10:00:00Z", "goVersion": "go1.26.0", "platform": "linux/arm64"}
	if !equalMaps(v, want) {
		t.Errorf("version -o json = %v, want %v", v, want)
	}
	// A binary without build information, and one without VCS stamps.
	if _, out, _ := run(t, Options{BuildInfo: func() (*debug.BuildInfo, bool) { return nil, false }}, "version", "-o", "jsonpath={.version}"); out != "unknown" {
		t.Errorf("version without build info: %q", out)
	}
	if _, out, _ := run(t, Options{}, "version", "-o", "yaml"); !strings.Contains(out, "kind: Version\n") || strings.Contains(out, "gitCommit") {
		t.Errorf("version of the test binary (built without VCS stamps):\n%s", out)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestProposedSpec(t *testing.T) {
	pn := &v1alpha1.PodNetwork{Spec: v1alpha1.PodNetworkSpec{
		Ranges:     []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}, {Name: "b", CIDR: "10.245.0.0/16"}},
		Allocation: &v1alpha1.AllocationPolicy{WhenExhausted: v1alpha1.WhenExhaustedReuseOldest},
	}}
	spec, err := proposedSpec(pn, []string{"c=10.246.0.0/16,nodeMaskSize=26"}, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range spec.Ranges {
		got = append(got, r.Name+"="+r.CIDR)
	}
	if strings.Join(got, " ") != "b=10.245.0.0/16 c=10.246.0.0/16" || spec.Ranges[1].NodeMaskSize != 26 {
		t.Errorf("ranges %v (nodeMaskSize %d)", got, spec.Ranges[1].NodeMaskSize)
	}
	if spec.Allocation == nil || spec.Allocation.WhenExhausted != v1alpha1.WhenExhaustedReuseOldest {
		t.Errorf("the rest of the spec was not kept: %+v", spec.Allocation)
	}
	if len(pn.Spec.Ranges) != 2 {
		t.Errorf("the cluster's spec was changed: %v", pn.Spec.Ranges)
	}
	for _, bad := range [][2][]string{
		{{"x"}, nil}, {{"x=10.0.0.0/16,mask=24"}, nil}, {{"b=10.9.0.0/16"}, nil}, {nil, {"zzz"}},
	} {
		if _, err := proposedSpec(pn, bad[0], bad[1]); err == nil {
			t.Errorf("--add %q --remove %q: no error", bad[0], bad[1])
		}
	}
}

// TestHumanAndMachineOutput: the default, wide and text print the tables;
// the rest cli-runtime's printers, which a template can use.
func TestHumanAndMachineOutput(t *testing.T) {
	v := cli.VersionFrom(&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1"}})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "kubectl-podnetwork v1, go1.26.0 " + v.Platform + "\n"},
		{[]string{"-o", "wide"}, "kubectl-podnetwork v1, go1.26.0 " + v.Platform + "\n"},
		{[]string{"-o", "text"}, "kubectl-podnetwork v1, go1.26.0 " + v.Platform + "\n"},
		{[]string{"-o", "go-template={{.kind}} {{.version}}"}, "Version v1"},
		{[]string{"--template", "{{.apiVersion}}"}, "cli.podnetwork.io/v1alpha1"},
		{[]string{"-o", "jsonpath={.kind}"}, "Version"},
		{[]string{"-o", "jsonpath-as-json={.version}"}, "[\n    \"v1\"\n]\n"},
	} {
		info := func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1"}}, true
		}
		code, out, stderr := run(t, Options{BuildInfo: info}, append([]string{"version"}, tt.args...)...)
		if code != ExitOK || out != tt.want {
			t.Errorf("version %q = %d, %q (%s), want %q", tt.args, code, out, stderr, tt.want)
		}
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeKubeconfig writes a kubeconfig with one context, whose server
// listens nowhere.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:9"}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	kc.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWarnings: the API server's warnings are printed once each, as kubectl
// prints them, and fail the run with --warnings-as-errors.
func TestWarnings(t *testing.T) {
	for _, asErrors := range []bool{false, true} {
		var stderr bytes.Buffer
		p := &plugin{stderr: &stderr, warnings: &warningPrinter{w: &stderr}, warningsAsErrors: asErrors}
		for _, text := range []string{"v1 is deprecated", "v1 is deprecated", "", "other"} {
			p.warnings.HandleWarningHeaderWithContext(context.Background(), 299, "", text)
		}
		p.warnings.HandleWarningHeaderWithContext(context.Background(), 199, "", "not a warning of the API")
		code := p.exit(nil, nil)
		want, wantCode := "Warning: v1 is deprecated\nWarning: other\n", ExitOK
		if asErrors {
			want, wantCode = want+"error: the API server sent 2 warnings (--warnings-as-errors)\n", ExitFailed
		}
		if code != wantCode || stderr.String() != want {
			t.Errorf("--warnings-as-errors=%v: exit %d, stderr %q", asErrors, code, stderr.String())
		}
	}
}

// TestProposedSpecAutoscaled: --remove of a range the autoscaler added
// names the pool that owns it and how to remove it, instead of "there is
// no range".
func TestProposedSpecAutoscaled(t *testing.T) {
	pn := &v1alpha1.PodNetwork{
		Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}}},
		Status: v1alpha1.PodNetworkStatus{Ranges: []v1alpha1.RangeStatus{
			{Name: "a", CIDR: "10.244.0.0/16", Phase: v1alpha1.RangePhaseActive},
			{Name: "gpu-1", CIDR: "10.250.0.0/26", Phase: v1alpha1.RangePhaseActive, Pool: "gpu"},
		}},
	}
	c := &cli.Cluster{PodNetwork: pn, AutoscaledRangeSet: &v1alpha1.AutoscaledRangeSet{Spec: &v1alpha1.AutoscaledRangeSetSpec{
		Ranges: []v1alpha1.AutoscaledRange{{Name: "gpu-1", Pool: "gpu", CIDR: "10.250.0.0/26"}},
	}}}
	_, err := proposedSpecIn(c, pn, nil, []string{"gpu-1"})
	if err == nil || !strings.HasPrefix(err.Error(), `--remove gpu-1: range "gpu-1" is not in spec.ranges: pool gpu of AutoscaledRangeSet default added it`) ||
		!strings.Contains(err.Error(), "edit pool gpu") {
		t.Errorf("--remove gpu-1: %v", err)
	}
	if _, err := proposedSpecIn(c, pn, nil, []string{"zzz"}); err == nil || err.Error() != `--remove zzz: there is no range "zzz"` {
		t.Errorf("--remove zzz: %v", err)
	}
	if spec, err := proposedSpecIn(c, pn, nil, []string{"a"}); err != nil || len(spec.Ranges) != 0 {
		t.Errorf("--remove a: %v %v", spec.Ranges, err)
	}
}
