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
	"strings"
	"testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// TestCommandLine covers what fails before the cluster is read; the
// commands themselves run against a real apiserver in
// test/integration/cli.
func TestCommandLine(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStderr string
	}{
		{nil, ExitUsage, "Usage:"},
		{[]string{"--help"}, ExitOK, "kubectl podnetwork plan"},
		{[]string{"frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
		{[]string{"status", "extra"}, ExitUsage, "unexpected arguments: extra"},
		{[]string{"status", "--no-such-flag"}, ExitUsage, "flag provided but not defined"},
		{[]string{"status", "-o", "xml"}, ExitUsage, `unknown output format "xml"`},
		{[]string{"check", "--kube-proxy-configmap", "kube-proxy"}, ExitUsage, `--kube-proxy-configmap "kube-proxy" is not namespace/name`},
		{[]string{"status", "--kubeconfig", "/nonexistent/kubeconfig"}, ExitFailed, "loading the kubeconfig"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), tt.args, &stdout, &stderr, Options{})
		if code != tt.code || !strings.Contains(stderr.String(), tt.inStderr) {
			t.Errorf("Run(%q) = %d with stderr %q, want %d and %q", tt.args, code, stderr.String(), tt.code, tt.inStderr)
		}
	}
}

func TestProposedSpec(t *testing.T) {
	c := &cli.Cluster{PodNetwork: &v1alpha1.PodNetwork{Spec: v1alpha1.PodNetworkSpec{
		Ranges:     []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}, {Name: "b", CIDR: "10.245.0.0/16"}},
		Allocation: &v1alpha1.AllocationPolicy{WhenExhausted: v1alpha1.WhenExhaustedReuseOldest},
	}}}
	spec, err := proposedSpec(c, "", []string{"c=10.246.0.0/16,nodeMaskSize=26"}, []string{"a"})
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
	if len(c.PodNetwork.Spec.Ranges) != 2 {
		t.Errorf("the cluster's spec was changed: %v", c.PodNetwork.Spec.Ranges)
	}
	for _, bad := range [][2][]string{
		{{"x"}, nil}, {{"x=10.0.0.0/16,mask=24"}, nil}, {{"b=10.9.0.0/16"}, nil}, {nil, {"zzz"}},
	} {
		if _, err := proposedSpec(c, "", bad[0], bad[1]); err == nil {
			t.Errorf("--add %q --remove %q: no error", bad[0], bad[1])
		}
	}
}
