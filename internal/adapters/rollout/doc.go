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

// Package rollout decides whether a configuration change has reached every
// pod of a DaemonSet, from what the API shows: the DaemonSet's status, the
// configuration hash in its pod template and in each pod, and the change time
// the adapter recorded on the DaemonSet. All state lives in the API, so a
// restarted or newly elected operator picks a rollout up where it was.
package rollout
