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

package netnode

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// statusPoll is how often a running pod's program and probe are looked at.
const statusPoll = 300 * time.Millisecond

// Kubelet plays the kubelet of every node of a Network for the pods it runs:
// a pod bound to one of its nodes whose container has a binary in Binaries
// runs that binary, as root, inside the node's network namespace and in a
// mount namespace of its own where the pod's volumes are mounted at their
// mountPaths (ConfigMaps as files, hostPath directories per node, the
// ServiceAccount token), with the container's args and environment
// (including the downward API fields a DaemonSet uses). The pod is Running
// while the program runs, Ready when its readiness probe (httpGet on the node
// address, or exec inside the container's namespaces) passes, restarted with
// a back-off when it exits, and stopped, then deleted, when the pod is
// deleted. Other pods are left alone.
type Kubelet struct {
	// Client talks to the API with rights to read pods, ConfigMaps and
	// nodes, write pod status, delete pods and request ServiceAccount tokens.
	Client client.Client
	// Network holds the nodes.
	Network *Network
	// Binaries maps a container name to the binary that replaces its
	// command's first word (the path inside the image).
	Binaries map[string]string
	// APIServer is what KUBERNETES_SERVICE_HOST and _PORT point at, and
	// CACert the CA that in-cluster clients trust (ca.crt in the token
	// volume).
	APIServer netip.AddrPort
	CACert    []byte
	// WorkDir receives the volumes and the programs' logs.
	WorkDir string

	mu         sync.Mutex
	containers map[types.UID]*container
	nodes      map[string]*Node

	// historyMu guards history alone: containers record under their own
	// lock, which Running takes under mu.
	historyMu sync.Mutex
	history   []ContainerEvent
}

// ContainerEventKind says what happened to a pod's program.
type ContainerEventKind string

const (
	// ContainerStarted: the program was started (first start or restart).
	ContainerStarted ContainerEventKind = "Started"
	// ContainerExited: the program ended by itself (an exit code, a crash,
	// a signal the stand-in did not send), or could not be started.
	ContainerExited ContainerEventKind = "Exited"
	// ContainerStopped: the stand-in stopped the program because its pod
	// was deleted or its node removed.
	ContainerStopped ContainerEventKind = "Stopped"
)

// ContainerEvent is one entry of the history of the programs the stand-in
// ran, which tests assert over (for example: no program exited by itself).
type ContainerEvent struct {
	Kind ContainerEventKind
	// Pod, UID and Node say whose program it was, Container which of the
	// pod's containers.
	Pod       types.NamespacedName
	UID       types.UID
	Node      string
	Container string
	// At is when it happened.
	At time.Time
	// Message is how the program ended (Exited and Stopped).
	Message string
	// ConfigMaps are, for Started, the ConfigMap files the program was
	// given, "<volume>/<file>" → content.
	ConfigMaps map[string]string
	// Log is the file the program's output of this run went to.
	Log string
}

func (k *Kubelet) record(ev ContainerEvent) {
	k.historyMu.Lock()
	defer k.historyMu.Unlock()
	k.history = append(k.history, ev)
}

// History returns every start and end of a program since the stand-in
// started, in order.
func (k *Kubelet) History() []ContainerEvent {
	k.historyMu.Lock()
	defer k.historyMu.Unlock()
	return append([]ContainerEvent(nil), k.history...)
}

// SetupWithManager watches every pod; the reconciler keeps the ones bound to
// its nodes.
func (k *Kubelet) SetupWithManager(mgr ctrl.Manager) error {
	k.containers = map[types.UID]*container{}
	if k.nodes == nil {
		k.nodes = map[string]*Node{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("netnode-kubelet").
		// Several pods at once: a probe or a stop can take seconds and
		// must not hold up the other pods of a rollout.
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		For(&corev1.Pod{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return k.node(o.(*corev1.Pod).Spec.NodeName) != nil
		}))).
		Complete(k)
}

func (k *Kubelet) node(name string) *Node {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nodes[name]
}

// Reconcile brings one pod's program and status in line with the pod.
func (k *Kubelet) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := k.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		if apierrors.IsNotFound(err) {
			k.stopNamed(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	node := k.node(pod.Spec.NodeName)
	if node == nil {
		return reconcile.Result{}, nil
	}
	if pod.DeletionTimestamp != nil {
		log.FromContext(ctx).Info("stopping container of deleted pod", "pod", klog.KObj(pod), "node", node.Name)
		k.stop(pod.UID)
		err := k.Client.Delete(ctx, pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &pod.UID})
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	c, err := k.ensure(ctx, pod, node)
	if err != nil {
		return reconcile.Result{}, err
	}
	if c == nil {
		return reconcile.Result{}, nil // no binary for this pod: not ours to run
	}
	if err := k.writeStatus(ctx, pod, node, c.observe(ctx)); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{RequeueAfter: statusPoll}, nil
}

// ensure returns the pod's container, starting it the first time.
func (k *Kubelet) ensure(ctx context.Context, pod *corev1.Pod, node *Node) (*container, error) {
	k.mu.Lock()
	c := k.containers[pod.UID]
	k.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if len(pod.Spec.Containers) == 0 {
		return nil, nil
	}
	spec := pod.Spec.Containers[0]
	binary, ok := k.Binaries[spec.Name]
	if !ok {
		return nil, nil
	}
	dir := filepath.Join(k.WorkDir, pod.Namespace+"_"+pod.Name+"_"+string(pod.UID[:8]))
	mounts, configs, err := k.volumes(ctx, pod, node, dir)
	if err != nil {
		return nil, err
	}
	env, err := k.environment(pod, &spec)
	if err != nil {
		return nil, err
	}
	c = &container{
		key: client.ObjectKeyFromObject(pod), node: node, spec: spec, binary: binary,
		mounts: mounts, env: env, logDir: dir, created: time.Now(), uid: pod.UID,
		configs: configs, record: k.record,
		// The kubelet refreshes ConfigMap volumes while the pod runs, so a
		// container that restarts after the ConfigMap was fixed reads the
		// fixed file.
		refresh: func(ctx context.Context) (map[string]string, error) {
			_, configs, err := k.volumes(ctx, pod, node, dir)
			return configs, err
		},
	}
	c.start()
	k.mu.Lock()
	k.containers[pod.UID] = c
	k.mu.Unlock()
	log.FromContext(ctx).Info("started container", "pod", klog.KObj(pod), "node", node.Name, "binary", binary)
	return c, nil
}

func (k *Kubelet) stop(uid types.UID) {
	k.mu.Lock()
	c := k.containers[uid]
	delete(k.containers, uid)
	k.mu.Unlock()
	if c != nil {
		c.stop()
	}
}

func (k *Kubelet) stopNamed(key types.NamespacedName) {
	k.mu.Lock()
	var uids []types.UID
	for uid, c := range k.containers {
		if c.key == key {
			uids = append(uids, uid)
		}
	}
	k.mu.Unlock()
	for _, uid := range uids {
		k.stop(uid)
	}
}

// StopAll stops every program, for the end of a test run.
func (k *Kubelet) StopAll() {
	k.mu.Lock()
	uids := make([]types.UID, 0, len(k.containers))
	for uid := range k.containers {
		uids = append(uids, uid)
	}
	k.mu.Unlock()
	for _, uid := range uids {
		k.stop(uid)
	}
}

// Running returns, per pod name, whether its program runs now and how often
// it was restarted. Tests use it to prove a program never stopped.
func (k *Kubelet) Running(node string) map[string]ContainerState {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]ContainerState{}
	for _, c := range k.containers {
		if c.node.Name == node {
			out[c.key.String()] = c.state()
		}
	}
	return out
}

// environment resolves the container's env: literal values and the
// downward API fields DaemonSets use, plus the in-cluster API address.
func (k *Kubelet) environment(pod *corev1.Pod, spec *corev1.Container) ([]string, error) {
	env := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"KUBERNETES_SERVICE_HOST=" + k.APIServer.Addr().String(),
		"KUBERNETES_SERVICE_PORT=" + strconv.Itoa(int(k.APIServer.Port())),
	}
	for _, e := range spec.Env {
		v := e.Value
		if e.ValueFrom != nil {
			if e.ValueFrom.FieldRef == nil {
				return nil, fmt.Errorf("pod %s: env %s: only fieldRef is supported", client.ObjectKeyFromObject(pod), e.Name)
			}
			switch e.ValueFrom.FieldRef.FieldPath {
			case "metadata.name":
				v = pod.Name
			case "metadata.namespace":
				v = pod.Namespace
			case "spec.nodeName":
				v = pod.Spec.NodeName
			case "status.hostIP", "status.podIP":
				v = k.node(pod.Spec.NodeName).IPv4.String()
			default:
				return nil, fmt.Errorf("pod %s: env %s: fieldRef %s is not supported", client.ObjectKeyFromObject(pod), e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
		}
		env = append(env, e.Name+"="+v)
	}
	return env, nil
}

// writeStatus writes the pod status a kubelet would for the container's
// state, when it differs from the pod's.
func (k *Kubelet) writeStatus(ctx context.Context, pod *corev1.Pod, node *Node, s ContainerState) error {
	want := podStatus(pod, node, s)
	if statusEqual(&pod.Status, want) {
		return nil
	}
	pod = pod.DeepCopy()
	pod.Status = *want
	return k.Client.Status().Update(ctx, pod)
}

func hostPort(addr netip.Addr, port int) string {
	return net.JoinHostPort(addr.String(), strconv.Itoa(port))
}

// now is a metav1 time at the API's resolution.
func now() metav1.Time { return metav1.NewTime(time.Now().Truncate(time.Second)) }

// LogTails returns, per pod the stand-in runs, the last lines of its
// program's current log, for a test to print when it fails.
func (k *Kubelet) LogTails(lines int) map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for _, c := range k.containers {
		out[c.key.String()+" on "+c.node.Name] = c.logTail(lines)
	}
	return out
}
