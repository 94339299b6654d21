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

package chaos

import (
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/chaos/faultproxy"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// check judges the recorded history and the operators' writes with
// test/framework/invariants/history.
func check(events []framework.Event, res *Result) history.Report {
	obs := make([]history.Observation, 0, len(events))
	for _, ev := range events {
		obs = append(obs, history.Observation{RV: ev.RV, Time: ev.Time, Object: ev.Object, Deleted: ev.Deleted})
	}
	return history.Check(obs, historyWrites(res.Writes), history.Options{
		LeaseNamespace: LeaseNamespace,
		LeaseName:      controllers.LeaderElectionID,
		Identities:     res.Identities,
		FaultsEnd:      res.FaultsEnd,
	})
}

// historyWrites converts the proxy's log. Code and RV are what the
// apiserver answered, also when the proxy then hid the answer from the
// operator (a 500, 503 or reset after forwarding): whether a write landed
// is what the checker needs.
func historyWrites(entries []faultproxy.Entry) []history.Write {
	out := make([]history.Write, 0, len(entries))
	for _, e := range entries {
		out = append(out, history.Write{
			Process: e.Process, Start: e.Start, End: e.End,
			Verb: e.Verb, Resource: e.Resource, Subresource: e.Subresource, Namespace: e.Namespace, Name: e.Name,
			Code: e.Code, RV: e.RV,
		})
	}
	return out
}
