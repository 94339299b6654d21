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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/controllers/watches"
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
	if !opts.Flannel || opts.KubeProxy {
		t.Errorf("enabled: kube-proxy %v flannel %v", opts.KubeProxy, opts.Flannel)
	}
	if want := (types.NamespacedName{Namespace: "kube-system", Name: "kube-flannel-cfg"}); opts.FlannelConfigMap.NamespacedName != want || opts.FlannelConfigMap.Key != "net-conf.json" {
		t.Errorf("flannel ConfigMap = %v", opts.FlannelConfigMap)
	}
	if opts.FlannelDaemonSet.Namespace != "kube-system" || opts.Limits.IPv4 != 12 || opts.Limits.IPv6 != 32 {
		t.Errorf("options = %+v", opts)
	}
	if err := opts.validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if err := fs.Parse([]string{"--kube-proxy-daemonset=kube-proxy"}); err == nil {
		t.Error("a DaemonSet without namespace must be refused")
	}
}

func TestAdapterOptionsValidate(t *testing.T) {
	opts := DefaultOptions()
	opts.KubeProxy = true
	opts.KubeProxyConfigMap.Key = ""
	opts.Limits.IPv6 = 129
	if err := opts.validate(); err == nil {
		t.Error("an empty key and an IPv6 limit of 129 must be refused")
	}
}

func TestAdapterCacheOptions(t *testing.T) {
	base := watches.CacheOptions()
	if got := CacheOptions(base, DefaultOptions()); len(got.ByObject) != len(base.ByObject) {
		t.Errorf("no adapter enabled: ByObject = %v, want it unchanged", got.ByObject)
	}
	opts := DefaultOptions()
	opts.KubeProxy, opts.Flannel = true, true
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
