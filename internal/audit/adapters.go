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

package audit

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/adapters"
)

// AdapterConfig checks an adapter's configuration, the key cm of a
// ConfigMap (uid empty when the ConfigMap does not exist), against the
// ranges in use, whether the adapter runs or not (cfg.Running): an adapter
// that is off no longer rewrites a configuration someone else keeps, and
// a range added since leaves it behind all the same (adapters.Config.Drift,
// the drift `kubectl podnetwork check` reports).
func (r *Run) AdapterConfig(cm adapters.ConfigMapKey, uid types.UID, cfg adapters.Config) {
	_, drift, _ := cfg.Drift(r.in.PodNetwork)
	if len(drift) == 0 {
		return
	}
	ref := corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name, UID: uid}
	msg := "key " + cm.Key + ": " + strings.Join(drift, "; ")
	r.add(Finding{Kind: AdapterConfigDrift, Regarding: ref, Related: podNetworkRef(), Reason: AdapterConfigDriftReason, Message: msg,
		key: findingKey(AdapterConfigDrift, &ref, msg)})
}
