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

package adapters

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	flanneladapter "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/adapters/registry"
)

func TestAdapterFlags(t *testing.T) {
	opts := DefaultOptions()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	opts.BindFlags(fs)
	if err := fs.Parse([]string{
		"--enable-flannel-adapter",
		"--flannel-configmap=kube-system/kube-flannel-cfg",
		"--flannel-daemonset=kube-system/kube-flannel-ds",
		"--adapter-min-covering-prefix-ipv4=12",
	}); err != nil {
		t.Fatal(err)
	}
	kubeProxy, flannel := component(t, &opts, kubeproxy.Name), component(t, &opts, flanneladapter.Name)
	if !flannel.Enabled || kubeProxy.Enabled {
		t.Errorf("enabled: kube-proxy %v flannel %v", kubeProxy.Enabled, flannel.Enabled)
	}
	if want := (types.NamespacedName{Namespace: "kube-system", Name: "kube-flannel-cfg"}); flannel.ConfigMap.NamespacedName != want || flannel.ConfigMap.Key != "net-conf.json" {
		t.Errorf("flannel ConfigMap = %v", flannel.ConfigMap)
	}
	if flannel.DaemonSet.Namespace != "kube-system" || opts.Limits.IPv4 != 12 || opts.Limits.IPv6 != 32 {
		t.Errorf("options = %+v", opts)
	}
	if err := opts.validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if err := fs.Parse([]string{"--kube-proxy-daemonset=kube-proxy"}); err == nil {
		t.Error("a DaemonSet without namespace must be refused")
	}
}

func component(t *testing.T, o *Options, name string) *Component {
	t.Helper()
	i := o.index(name)
	if i < 0 {
		t.Fatalf("no adapter %q", name)
	}
	return &o.Components[i]
}

func TestAdapterOptionsValidate(t *testing.T) {
	opts := DefaultOptions()
	opts.Enable(kubeproxy.Name)
	component(t, &opts, kubeproxy.Name).ConfigMap.Key = ""
	opts.Limits.IPv6 = 129
	if err := opts.validate(); err == nil {
		t.Error("an empty key and an IPv6 limit of 129 must be refused")
	}
}

// TestOptionsFromRegistry shows that the operator's adapter flags, their
// validation, its setup and its cache come from the descriptors: a third
// descriptor gets its four flags with its defaults, is validated and is
// cached in its namespace, with nothing else to change here.
func TestOptionsFromRegistry(t *testing.T) {
	fake := adapterstest.FakeAdapter()
	opts := OptionsFor(append(registry.All(), fake))
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	opts.BindFlags(fs)
	for flagName, want := range map[string]string{
		"enable-example-cni-adapter": "false",
		"example-cni-configmap":      "example-system/example-config",
		"example-cni-configmap-key":  "config.json",
		"example-cni-daemonset":      "example-system/example-agent",
	} {
		f := fs.Lookup(flagName)
		if f == nil {
			t.Errorf("no flag --%s", flagName)
			continue
		}
		if f.DefValue != want {
			t.Errorf("--%s defaults to %q, want %q", flagName, f.DefValue, want)
		}
	}
	if err := fs.Parse([]string{"--enable-example-cni-adapter", "--example-cni-daemonset=other/agent", "--example-cni-configmap-key="}); err != nil {
		t.Fatal(err)
	}
	c := component(t, &opts, fake.Name)
	if !c.Enabled || c.DaemonSet != (types.NamespacedName{Namespace: "other", Name: "agent"}) {
		t.Errorf("after the flags: %+v", c)
	}
	if err := opts.validate(); err == nil || !strings.Contains(err.Error(), "the example-cni ConfigMap") {
		t.Errorf("an empty key of the third adapter: validate = %v", err)
	}
	c.ConfigMap.Key = "config.json"
	got := CacheOptions(watches.CacheOptions(), opts)
	for o, cfg := range got.ByObject {
		if sameType(o, &corev1.ConfigMap{}) {
			for _, ns := range []string{"example-system", "other"} {
				if _, ok := cfg.Namespaces[ns]; !ok {
					t.Errorf("the third adapter's namespace %s is not cached: %v", ns, cfg.Namespaces)
				}
			}
		}
	}
}

// TestBuiltInAdapterNames pins the names the built-in adapters write
// under: changing one orphans the objects a running cluster has.
func TestBuiltInAdapterNames(t *testing.T) {
	var got []string
	for _, c := range DefaultOptions().Components {
		got = append(got, fmt.Sprintf("%s %s podnetwork-%s-adapter %q", c.Adapter.Name, c.Adapter.FieldManager(), c.Adapter.Name, c.Adapter.Description))
	}
	want := []string{
		`kube-proxy podnetwork-operator/kube-proxy podnetwork-kube-proxy-adapter "kube-proxy adapter of podnetwork-operator: manages clusterCIDR in kube-proxy's ConfigMap and restarts its DaemonSet."`,
		`flannel podnetwork-operator/flannel podnetwork-flannel-adapter "flannel adapter of podnetwork-operator: manages Network and IPv6Network in flannel's net-conf.json and restarts its DaemonSet."`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("adapters:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAdapterCacheOptions(t *testing.T) {
	base := watches.CacheOptions()
	if got := CacheOptions(base, DefaultOptions()); len(got.ByObject) != len(base.ByObject) {
		t.Errorf("no adapter enabled: ByObject = %v, want it unchanged", got.ByObject)
	}
	opts := DefaultOptions()
	opts.Enable(kubeproxy.Name, flanneladapter.Name)
	got := CacheOptions(base, opts)
	for _, obj := range []client.Object{&corev1.ConfigMap{}, &appsv1.DaemonSet{}, &corev1.Pod{}} {
		var cfg *cache.ByObject
		for o, c := range got.ByObject {
			if sameType(o, obj) {
				cfg = &c
			}
		}
		if cfg == nil || len(cfg.Namespaces) != 2 {
			t.Errorf("%T: %+v, want the namespaces kube-system and kube-flannel", obj, cfg)
			continue
		}
		for _, ns := range []string{"kube-system", "kube-flannel"} {
			if _, ok := cfg.Namespaces[ns]; !ok {
				t.Errorf("%T is not cached in %s", obj, ns)
			}
		}
	}
	var nodeKept bool
	for o, c := range got.ByObject {
		nodeKept = nodeKept || (sameType(o, &corev1.Node{}) && c.Transform != nil)
	}
	if !nodeKept {
		t.Error("the Node transform of the base options was lost")
	}
}

func sameType(a, b client.Object) bool {
	switch a.(type) {
	case *corev1.ConfigMap:
		_, ok := b.(*corev1.ConfigMap)
		return ok
	case *appsv1.DaemonSet:
		_, ok := b.(*appsv1.DaemonSet)
		return ok
	case *corev1.Pod:
		_, ok := b.(*corev1.Pod)
		return ok
	case *corev1.Node:
		_, ok := b.(*corev1.Node)
		return ok
	}
	return false
}
