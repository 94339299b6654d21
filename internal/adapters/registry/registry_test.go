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

package registry

import (
	"fmt"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
)

// TestDescriptorsAreComplete checks what the operator, the plugin and the
// chart rely on in every descriptor, the fake one included.
func TestDescriptorsAreComplete(t *testing.T) {
	names, keys := map[string]bool{}, map[string]bool{}
	for _, d := range append(All(), adapterstest.FakeAdapter()) {
		missing := []string{}
		for what, empty := range map[string]bool{
			"Name": d.Name == "", "ValuesKey": d.ValuesKey == "", "Description": d.Description == "",
			"DefaultConfigMap": d.DefaultConfigMap.Namespace == "" || d.DefaultConfigMap.Name == "" || d.DefaultConfigMap.Key == "",
			"DefaultDaemonSet": d.DefaultDaemonSet.Namespace == "" || d.DefaultDaemonSet.Name == "",
			"Help":             d.Help.Enable == "" || d.Help.ConfigMap == "" || d.Help.ConfigMapKey == "" || d.Help.DaemonSet == "",
			"KubectlHelp":      d.KubectlHelp.ConfigMap == "" || d.KubectlHelp.ConfigMapKey == "" || d.KubectlHelp.DaemonSet == "",
			"Plan":             d.Plan == nil, "Covered": d.Covered == nil,
			"Proof and ProofWhat together": (d.Proof == nil) != (d.ProofWhat == ""),
		} {
			if empty {
				missing = append(missing, what)
			}
		}
		if len(missing) > 0 {
			t.Errorf("adapter %q lacks %s", d.Name, strings.Join(missing, ", "))
		}
		if names[d.Name] || keys[d.ValuesKey] {
			t.Errorf("adapter %q: its name or values key %q is taken", d.Name, d.ValuesKey)
		}
		names[d.Name], keys[d.ValuesKey] = true, true
	}
}

func TestRBAC(t *testing.T) {
	render := func(descs []adapters.Descriptor) string {
		var b strings.Builder
		for _, r := range RBAC(descs) {
			fmt.Fprintf(&b, "%q %v %v\n", r.APIGroups, r.Resources, r.Verbs)
		}
		return b.String()
	}
	// The built-in adapters need only what every adapter needs.
	builtIn := `[""] [configmaps] [get list patch update watch]
[""] [pods] [get list watch]
["apps"] [daemonsets] [get list patch watch]
`
	if got := render(All()); got != builtIn {
		t.Errorf("RBAC(All()):\n%s\nwant:\n%s", got, builtIn)
	}
	// A descriptor's own rules join them, merged as controller-gen merges
	// rules: one per group and verbs.
	withFake := `[""] [configmaps] [get list patch update watch]
[""] [pods secrets] [get list watch]
["apps"] [daemonsets] [get list patch watch]
`
	if got := render(append(All(), adapterstest.FakeAdapter())); got != withFake {
		t.Errorf("RBAC with the fake adapter:\n%s\nwant:\n%s", got, withFake)
	}
	if got := RBAC(nil); got != nil {
		t.Errorf("RBAC(nil) = %v, want no rule", got)
	}
}
