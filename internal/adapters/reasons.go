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

// Reasons of the Ready condition an adapter writes on its own
// PodNetworkConsumer. Ready=True means the adapter can apply ranges, even
// while a rollout is under way; Ready=False means it cannot, and it then
// acknowledges nothing (blocking is the right answer for a required
// consumer) and overwrites nothing.
const (
	// ReasonRunning (Ready=True): every pod of the DaemonSet runs the
	// configuration that holds the current ranges (v1alpha1.ConsumerRunningReason).
	ReasonRunning = "Running"

	// ReasonRollingOut (Ready=True): the adapter changed the configuration
	// and waits for every pod of the DaemonSet to restart with it.
	ReasonRollingOut = "RollingOut"

	// ReasonWaitingForRollout (Ready=True): the configuration must change,
	// but a rollout of the DaemonSet that the adapter did not start is still
	// in progress; the adapter starts its own once that one has finished.
	ReasonWaitingForRollout = "WaitingForRollout"

	// ReasonWaitingForNodes (Ready=True): the DaemonSet is rolled out, but
	// some nodes have not proved yet that the component started there with
	// the new configuration (flannel's NetworkUnavailable=False, reason
	// FlannelIsUp).
	ReasonWaitingForNodes = "WaitingForNodes"

	// ReasonRangeIndependent (Ready=True): the component's configuration does
	// not depend on the pod ranges (kube-proxy's NodeCIDR, BridgeInterface and
	// InterfaceNamePrefix modes), so the adapter acknowledges every phase at
	// once.
	ReasonRangeIndependent = "RangeIndependent"

	// ReasonNoPodNetwork (Ready=True): PodNetwork "default" does not exist or
	// tracks no range yet; the adapter leaves the configuration alone.
	ReasonNoPodNetwork = "NoPodNetwork"

	// ReasonConfigMapNotFound (Ready=False): the ConfigMap or its key is
	// missing.
	ReasonConfigMapNotFound = "ConfigMapNotFound"

	// ReasonDaemonSetNotFound (Ready=False): the DaemonSet is missing.
	ReasonDaemonSetNotFound = "DaemonSetNotFound"

	// ReasonInvalidConfig (Ready=False): the configuration cannot be parsed,
	// or cannot be rewritten without touching fields the adapter does not
	// manage.
	ReasonInvalidConfig = "InvalidConfig"
)

// EventInvalidValue is the reason of the Warning event an adapter emits on
// the component's ConfigMap when it replaces a value the component refuses
// (Plan.Invalid), so the admin learns what was wrong after it is gone.
const EventInvalidValue = "InvalidValue"
