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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions restricts the informers of the objects only the
// adapters read (ConfigMaps, DaemonSets, Pods) to the namespaces of the
// enabled adapters, so the operator does not cache every pod of the cluster.
// It leaves base alone when no adapter is enabled.
func CacheOptions(base cache.Options, opts Options) cache.Options {
	namespaces := map[string]cache.Config{}
	for _, c := range opts.Components {
		if c.Enabled {
			namespaces[c.ConfigMap.Namespace] = cache.Config{}
			namespaces[c.DaemonSet.Namespace] = cache.Config{}
		}
	}
	if len(namespaces) == 0 {
		return base
	}
	byObject := make(map[client.Object]cache.ByObject, len(base.ByObject)+3)
	for obj, cfg := range base.ByObject {
		byObject[obj] = cfg
	}
	for _, obj := range []client.Object{&corev1.ConfigMap{}, &appsv1.DaemonSet{}, &corev1.Pod{}} {
		byObject[obj] = cache.ByObject{Namespaces: namespaces}
	}
	base.ByObject = byObject
	return base
}
