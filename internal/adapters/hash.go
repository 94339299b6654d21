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
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// ConfigHash returns the hash an adapter writes into its DaemonSet's pod
// template (rollout.ConfigHashAnnotation). It hashes the whole content of the
// managed ConfigMap key, not only the managed fields: a component reads the
// whole file at start, so any edit of it, the adapter's or an admin's, is
// rolled out the same way and the adapter's acknowledgements always describe
// what the pods run.
func ConfigHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:16])
}

// RolloutHash returns the hash an adapter writes into its DaemonSet's pod
// template for a configuration and the marks of Plan.Template that roll out
// with it: ConfigHash(content) when no mark is set (an empty value is no
// mark), so a component without marks keeps the hash it always had; and a
// hash of both otherwise, so setting a mark restarts the pods as a
// configuration change does, and a pod's hash says it started with it.
func RolloutHash(content string, marks map[string]string) string {
	var keys []string
	for k, v := range marks {
		if v != "" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ConfigHash(content)
	}
	slices.Sort(keys)
	h := sha256.New()
	h.Write([]byte(content))
	for _, k := range keys {
		// NUL separates: no mark's key or value (the adapters' own) holds one.
		h.Write([]byte("\x00" + k + "=" + marks[k]))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
