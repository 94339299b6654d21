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

package realconfig

import "strings"

// refusal records a golden input that is kept although the real program
// refuses it.
type refusal struct {
	// want is a substring of the real program's refusal.
	want string
	// why the fixture is kept: what real situation it stands for.
	why string
}

// refusedInputs lists every golden input labelled as refused, by
// "<program>/<file name>". The label is also in the file name
// (refusedLabel), so a reader of testdata/ sees it without opening this
// table; TestGoldenFiles fails when the two disagree.
var refusedInputs = map[string]refusal{
	"kube-proxy/dualstack-space.refused.yaml": {
		want: `Invalid value: " fd00:10:244::/56": must be a valid CIDR block`,
		why: "clusterCIDR written by hand with a space after the comma: kube-proxy does not trim it and exits; " +
			"the adapter writes the value without the space, which is how an adapter rollout repairs it",
	},
	"flannel/empty.refused.json": {
		want: "Network is empty",
		why: "net-conf.json holding only {} (a half-finished install): flanneld parses it but no node with an " +
			"IPv4 podCIDR gets a lease; the adapter writes Network from the ranges and the nodes' podCIDRs",
	},
	"flannel/no-network.refused.json": {
		want: "Network is empty",
		why: "a Backend but no Network (a half-finished install): flanneld parses it but no node with an " +
			"IPv4 podCIDR gets a lease; the adapter adds Network next to Backend in the file's own style",
	},
}

// refusedLabel marks a golden input the real program refuses:
// <name>.refused.yaml, <name>.refused.json.
const refusedLabel = ".refused."

func labelledRefused(file string) bool { return strings.Contains(file, refusedLabel) }
