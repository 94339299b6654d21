// Package rollout decides whether a configuration change has reached every
// pod of a DaemonSet, from what the API shows: the DaemonSet's status, the
// configuration hash in its pod template and in each pod, and the change time
// the adapter recorded on the DaemonSet. All state lives in the API, so a
// restarted or newly elected operator picks a rollout up where it was.
package rollout
