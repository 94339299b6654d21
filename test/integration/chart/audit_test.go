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

package chart_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"podnetwork.io/operator/test/framework/chart"
)

// auditRBAC returns "<kind> <namespace>/<name>: <rules or roleRef>" of
// every RBAC object of the rendered chart named after the audit.
func auditRBAC(objs []map[string]any) []string {
	var out []string
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if !strings.HasSuffix(name, "-audit") && !strings.HasSuffix(name, "-audit-configmaps") {
			continue
		}
		what := fmt.Sprint(o["rules"])
		if ref, ok := o["roleRef"].(map[string]any); ok {
			what = fmt.Sprintf("%v %v", ref["kind"], ref["name"])
		}
		out = append(out, fmt.Sprintf("%v %v/%v: %s", o["kind"], meta["namespace"], name, what))
	}
	slices.Sort(out)
	return out
}

// args returns the operator container's arguments.
func args(t *testing.T, objs []map[string]any) string {
	t.Helper()
	deploy := chart.Find(objs, "Deployment")
	spec, _ := deploy["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	podSpec, _ := tmpl["spec"].(map[string]any)
	containers, _ := podSpec["containers"].([]any)
	if len(containers) == 0 {
		t.Fatal("no container rendered")
	}
	c, _ := containers[0].(map[string]any)
	return fmt.Sprint(c["args"])
}

// TestAuditRBACOnlyWhenEnabled: the audit's right to list every pod and
// NetworkPolicy exists only with audit.enabled, in a ClusterRole of its
// own; so does its right to get the adapters' ConfigMaps, enabled adapters
// or not, by their names only (in any namespace: one that does not exist,
// that of a component not installed, could hold no Role).
func TestAuditRBACOnlyWhenEnabled(t *testing.T) {
	root := repoRoot(t)
	tool(t, root, "helm")
	objs, err := chart.Render(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := auditRBAC(objs); len(got) != 0 {
		t.Errorf("audit RBAC without audit.enabled:\n%s", strings.Join(got, "\n"))
	}
	if a := args(t, objs); !strings.Contains(a, "--enable-audit=false") {
		t.Errorf("args %s", a)
	}
	for _, o := range objs {
		if rules := fmt.Sprint(o["rules"]); o["kind"] == "ClusterRole" && (strings.Contains(rules, "networkpolicies") || strings.Contains(rules, "resources:[pods] verbs:[list]")) {
			t.Errorf("a ClusterRole lists pods or NetworkPolicies without audit.enabled: %v", rules)
		}
	}

	objs, err = chart.Render(root, "--set", "audit.enabled=true", "--set", "audit.interval=1m", "--set", "audit.podIPs=false",
		"--set", "adapters.flannel.configMap=kube-flannel/custom-flannel-cfg")
	if err != nil {
		t.Fatal(err)
	}
	// The release is named like the chart, so the full name is the release's.
	release := chart.Release + "-audit"
	want := []string{
		fmt.Sprintf("ClusterRole <nil>/%s-configmaps: [map[apiGroups:[] resourceNames:[custom-flannel-cfg kube-proxy] resources:[configmaps] verbs:[get]]]", release),
		fmt.Sprintf("ClusterRole <nil>/%s: [map[apiGroups:[] resources:[pods] verbs:[list]] map[apiGroups:[events.k8s.io] resources:[events] verbs:[create patch]] "+
			"map[apiGroups:[networking.k8s.io] resources:[networkpolicies] verbs:[list]]]", release),
		fmt.Sprintf("ClusterRoleBinding <nil>/%s-configmaps: ClusterRole %s-configmaps", release, release),
		fmt.Sprintf("ClusterRoleBinding <nil>/%s: ClusterRole %s", release, release),
	}
	if got := auditRBAC(objs); !slices.Equal(got, want) {
		t.Errorf("audit RBAC:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	a := args(t, objs)
	for _, flag := range []string{"--enable-audit=true", "--audit-interval=1m", "--audit-pod-ips=false"} {
		if !strings.Contains(a, flag) {
			t.Errorf("args %s lack %s", a, flag)
		}
	}
	helmRefuses(t, root, "audit:\n  interval: often\n", "/audit/interval")
}
