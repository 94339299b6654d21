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
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/registry"
	"podnetwork.io/operator/internal/goldenfile"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/scheme"
)

// TestHelpGolden pins the plugin's help, on standard output, and its flags;
// the adapters' flags come from the registry's descriptors.
func TestHelpGolden(t *testing.T) {
	var all bytes.Buffer
	for _, args := range [][]string{{"--help"}, {"status", "--help"}, {"check", "--help"}, {"plan", "--help"}, {"version", "--help"}} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), args, &stdout, &stderr, Options{})
		fmt.Fprintf(&all, "$ kubectl podnetwork %s (exit %d)\n%s", strings.Join(args, " "), code, stdout.String())
		if stderr.Len() > 0 {
			t.Errorf("%q: help on standard error: %s", args, stderr.String())
		}
	}
	golden(t, "help.golden", all.Bytes())
}

// TestDefaultTargetsGolden pins where the plugin looks for the adapters'
// components by default.
func TestDefaultTargetsGolden(t *testing.T) {
	var out bytes.Buffer
	for _, tg := range DefaultTargets() {
		fmt.Fprintf(&out, "%s configMap=%s key=%s daemonSet=%s limits=%+v\n", tg.Adapter.Name, tg.ConfigMap, tg.ConfigMapKey, tg.DaemonSet, tg.Limits)
	}
	golden(t, "targets.golden", out.Bytes())
}

// TestAdaptersFromRegistry shows that the plugin's adapters come from the
// registry's descriptors: a third descriptor gets its flags, a target, and
// is read (and so shown by status, check and plan) once its
// PodNetworkConsumer exists.
func TestAdaptersFromRegistry(t *testing.T) {
	f := defaultAdapterFlags(append(registry.All(), adapterstest.FakeAdapter()))
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.bind(fs)
	for _, name := range []string{"example-cni-configmap", "example-cni-configmap-key", "example-cni-daemonset"} {
		if fs.Lookup(name) == nil {
			t.Errorf("no flag --%s", name)
		}
	}
	if err := fs.Parse([]string{"--example-cni-configmap=other/config"}); err != nil {
		t.Fatal(err)
	}
	targets, err := f.targets()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range targets {
		names = append(names, tg.Adapter.Name)
	}
	if got := strings.Join(names, " "); got != "kube-proxy flannel example-cni" {
		t.Fatalf("targets %s", got)
	}
	third := targets[2]
	if third.ConfigMap != (client.ObjectKey{Namespace: "other", Name: "config"}) || third.ConfigMapKey != "config.json" ||
		third.DaemonSet != (client.ObjectKey{Namespace: "example-system", Name: "example-agent"}) {
		t.Errorf("third target %+v", third)
	}

	c := fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(
		&v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "example-cni"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "config"}, Data: map[string]string{"config.json": "{}"}},
	).Build()
	cluster, err := Read(context.Background(), c, nodeipam.ConsumerName, targets)
	if err != nil {
		t.Fatal(err)
	}
	if len(cluster.Adapters) != 1 || cluster.Adapters[0].Consumer != "example-cni" || !cluster.Adapters[0].Found ||
		cluster.Adapters[0].ConfigMap != "other/config[config.json]" || cluster.Adapters[0].Plan == nil {
		t.Errorf("adapters read: %+v", cluster.Adapters)
	}
}

// golden compares got with testdata/name (goldenfile.Compare).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Compare(t, filepath.Join("testdata", name), got)
}
