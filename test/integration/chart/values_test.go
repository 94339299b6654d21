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
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/registry"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/test/framework/chart"
)

// helmRefuses runs `helm template` and `helm lint --strict` with the
// values file values and checks that both refuse it, saying where.
func helmRefuses(t *testing.T, root, values, where string) {
	t.Helper()
	helm := tool(t, root, "helm")
	file := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(file, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := chart.Render(root, "-f", file); err == nil {
		t.Errorf("helm template accepted\n%s", values)
	} else if !strings.Contains(err.Error(), where) {
		t.Errorf("helm template refused\n%sbut does not name %s: %v", values, where, err)
	}
	out, err := exec.Command(helm, "lint", "--strict", chart.Dir(root), "-f", file).CombinedOutput()
	if err == nil {
		t.Errorf("helm lint accepted\n%s", values)
	} else if !strings.Contains(string(out), where) {
		t.Errorf("helm lint refused\n%sbut does not name %s:\n%s", values, where, out)
	}
}

// TestSchemaRefusesUnfencedReplicas: more than one replica without leader
// election would be two unfenced allocators handing out the same blocks.
func TestSchemaRefusesUnfencedReplicas(t *testing.T) {
	root := repoRoot(t)
	for _, replicas := range []string{"2", "5"} {
		helmRefuses(t, root, "replicaCount: "+replicas+"\nleaderElection:\n  enabled: false\n", "/leaderElection/enabled")
	}
	// One replica without leader election is allowed (ci/single-values.yaml
	// too), replaced by Recreate so an upgrade never runs two; several
	// with leader election roll as usual.
	for _, tc := range []struct {
		values   []string
		strategy any
	}{
		{[]string{"--set", "replicaCount=1", "--set", "leaderElection.enabled=false"}, map[string]any{"type": "Recreate"}},
		{[]string{"--set", "replicaCount=3"}, nil},
		{nil, nil}, // the defaults: two replicas with leader election
	} {
		objs, err := chart.Render(root, tc.values...)
		if err != nil {
			t.Fatal(err)
		}
		deploy := chart.Find(objs, "Deployment")
		if deploy == nil {
			t.Fatalf("%v: no Deployment rendered", tc.values)
		}
		spec, _ := deploy["spec"].(map[string]any)
		if got := spec["strategy"]; !reflect.DeepEqual(got, tc.strategy) {
			t.Errorf("%v: Deployment strategy %v, want %v", tc.values, got, tc.strategy)
		}
	}
}

// TestSchemaRefusesBuiltInConsumerNamesForPlugins: a plugin named like one
// of the operator's own consumers (NodeIPAM's, or an adapter's from the
// registry) would render a second PodNetworkConsumer of that name and let
// the plugin's ServiceAccount write the operator's acknowledgements.
func TestSchemaRefusesBuiltInConsumerNamesForPlugins(t *testing.T) {
	root := repoRoot(t)
	names := []string{nodeipam.ConsumerName}
	for _, d := range registry.All() {
		names = append(names, d.Name)
	}
	plugin := func(name string) string {
		return "plugins:\n  - name: " + name + "\n    serviceAccount:\n      name: cni\n      namespace: kube-system\n"
	}
	for _, name := range names {
		helmRefuses(t, root, plugin(name), "/plugins/0/name")
	}
	// A name that only contains one is a plugin like any other.
	objs, err := chart.Render(root, "--set", "plugins[0].name=my-flannel", "--set", "plugins[0].serviceAccount.name=cni", "--set", "plugins[0].serviceAccount.namespace=kube-system")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		if o["kind"] == "PodNetworkConsumer" && meta["name"] == "my-flannel" {
			found = true
		}
	}
	if !found {
		t.Error("plugin my-flannel has no PodNetworkConsumer")
	}
}
