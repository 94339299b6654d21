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

// Plan is what a component package (kubeproxy, flannel) decided for the
// component's current configuration.
type Plan struct {
	// RangeIndependent, when not empty, says why the component's
	// configuration does not depend on the pod ranges. The adapter then
	// writes nothing, restarts nothing and acknowledges every phase at once
	// with this message.
	RangeIndependent string
	// Config is the desired content of the ConfigMap key: the current content
	// with the managed fields set. It equals the current content when nothing
	// has to change.
	Config string
	// Summary names the managed values for messages, for example
	// "clusterCIDR 10.244.0.0/15".
	Summary string
	// Decision holds the covering prefixes, the rejected Pending ranges and
	// the problems to report.
	Decision Decision
	// Invalid, when not empty, says which value of the current
	// configuration the component refuses (so it cannot start with it);
	// Config replaces it.
	Invalid string
}
