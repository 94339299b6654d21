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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/internal/leasefence"
)

// A leader paused past its lease (SIGSTOP, a frozen VM) wakes up believing
// it leads and, for up to a renew deadline, writes from a state another
// replica has moved on from: the chaos suite (test/chaos) caught it
// assigning blocks the new leader had already given to other nodes. The
// manager's client is therefore fenced: every write checks, in the HTTP
// transport just before it is sent, that this process renewed the lease
// less than a renew deadline ago by its own clock (internal/leasefence).

// fencedLock is the leader-election lock, telling the fence about every
// renewal: the time is taken before the request is sent.
type fencedLock struct {
	resourcelock.Interface
	fence *leasefence.Fence
	// quiesce bounds how long a release waits for the writes in flight;
	// uncertainFor is how long a write that failed on the wire keeps the
	// lease from being released (the lease duration: a release skipped
	// makes the next leader wait that long after the last renewal).
	quiesce, uncertainFor time.Duration
}

func (l *fencedLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := l.fence.Now()
	err := l.Interface.Create(ctx, ler)
	l.record(err, ler, sent)
	return err
}

func (l *fencedLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	if ler.HolderIdentity != l.Identity() {
		// A release, on the way out: stop writing now, whatever its
		// outcome. client-go's release decides that this process still
		// leads from the record it observed last, not from the one it has
		// just read, so a leader paused past its lease releases the lease
		// another replica holds by now (the chaos suite caught it). Only
		// our own tenure is released.
		l.fence.Released()
		if current, _, err := l.Interface.Get(ctx); err == nil && current.HolderIdentity != l.Identity() {
			return nil
		}
		// A write let through before the fence closed may still be on its
		// way: releasing now would let the next leader write before it
		// lands. Wait for it, or leave the lease to expire.
		if err := l.fence.Quiesce(l.quiesce, l.uncertainFor); err != nil {
			return fmt.Errorf("not releasing the lease, leaving it to expire: %w", err)
		}
	}
	sent := l.fence.Now()
	err := l.Interface.Update(ctx, ler)
	l.record(err, ler, sent)
	return err
}

func (l *fencedLock) record(err error, ler resourcelock.LeaderElectionRecord, sent time.Time) {
	switch {
	case err != nil:
	case ler.HolderIdentity == l.Identity():
		l.fence.Renewed(sent)
	default:
		l.fence.Released() // the release on a clean shutdown writes an empty holder
	}
}

// fenceWrites makes the manager elect its leader through a fenced lock and
// write through a fenced client, and fences the Events written with cfg,
// which it changes. It returns the wrapper that fences an HTTP client, for
// writers outside the manager's client, and stop, which ends the lock's
// event broadcaster.
func fenceWrites(cfg *rest.Config, opts Options, mgrOpts *ctrl.Options) (fenced func(*http.Client) *http.Client, stop func(), err error) {
	fence := leasefence.New(clock.RealClock{}, opts.RenewDeadline)
	// Events too: controller-runtime's recorders (both Event APIs) and the
	// lock's event broadcaster build their clients from the rest.Config
	// alone, so the config's own transport is their one common hook. The
	// same config serves the cache's reads, the Lease and the metrics
	// endpoint's reviews, so it refuses only Event writes.
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &fencedTransport{next: rt, fence: fence, only: isEventWrite}
	})
	lock, stop, err := newFencedLock(cfg, opts, fence)
	if err != nil {
		return nil, nil, err
	}
	mgrOpts.LeaderElectionResourceLockInterface = lock
	fenced = func(hc *http.Client) *http.Client {
		c := *hc
		c.Transport = &fencedTransport{next: hc.Transport, fence: fence}
		return &c
	}
	mgrOpts.NewClient = func(config *rest.Config, o client.Options) (client.Client, error) {
		// The manager hands every client the HTTP client its cache uses:
		// the client gets a copy whose transport is fenced.
		hc := o.HTTPClient
		if hc == nil {
			var err error
			if hc, err = rest.HTTPClientFor(config); err != nil {
				return nil, fmt.Errorf("creating the manager's HTTP client: %w", err)
			}
		}
		o.HTTPClient = fenced(hc)
		c, err := client.New(config, o)
		if err != nil {
			return nil, fmt.Errorf("creating the manager's client: %w", err)
		}
		return c, nil
	}
	return fenced, stop, nil
}

// newFencedLock builds the Lease lock as controller-runtime would (identity
// hostname_uuid, a client timeout of half the renew deadline), wrapped.
func newFencedLock(cfg *rest.Config, opts Options, fence *leasefence.Fence) (*fencedLock, func(), error) {
	namespace := opts.LeaderElectionNamespace
	if namespace == "" {
		// In a pod, its own namespace, as controller-runtime defaults it.
		ns, err := podNamespace()
		if err != nil {
			return nil, nil, fmt.Errorf("--leader-election-namespace is required outside a cluster: %w", err)
		}
		namespace = ns
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the hostname for the leader identity: %w", err)
	}
	id := host + "_" + string(uuid.NewUUID())
	lcfg := rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election")
	lcfg.Timeout = max(opts.RenewDeadline/2, time.Second)
	cs, err := kubernetes.NewForConfig(lcfg)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the leader-election client: %w", err)
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(leaseEventSink{&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")}})
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, namespace, LeaderElectionID,
		cs.CoreV1(), cs.CoordinationV1(), resourcelock.ResourceLockConfig{
			Identity:      id,
			EventRecorder: broadcaster.NewRecorder(runtime.NewScheme(), corev1.EventSource{Component: id}),
		})
	if err != nil {
		broadcaster.Shutdown()
		return nil, nil, fmt.Errorf("creating the leader-election lock: %w", err)
	}
	return &fencedLock{Interface: lock, fence: fence, quiesce: opts.RenewDeadline, uncertainFor: opts.LeaseDuration},
		broadcaster.Shutdown, nil
}

// fencedTransport refuses every write (POST, PUT, PATCH, DELETE), or only
// those only picks when set, while the fence is closed. It sits under
// client-go's rate limiter and its retries, so a write that waited there
// (or in a paused process) is judged when it is about to be sent, not when
// it was decided.
type fencedTransport struct {
	next  http.RoundTripper
	fence *leasefence.Fence
	only  func(*http.Request) bool
}

func (t *fencedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		if seededBugUnfencedWrite || (t.only != nil && !t.only(req)) {
			break
		}
		done, err := t.fence.Begin()
		if err != nil {
			if req.Body != nil {
				_ = req.Body.Close() // a RoundTripper must close the body, even on error
			}
			return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
		}
		// The write has landed once its answer's headers are back (the
		// apiserver answers after etcd commits); a transport error leaves
		// it uncertain.
		resp, err := t.next.RoundTrip(req)
		done(err)
		return resp, err
	}
	return t.next.RoundTrip(req)
}

// isEventWrite reports whether req writes Events, of the core API
// (/api/v1[/namespaces/NS]/events) or of events.k8s.io
// (/apis/events.k8s.io/VERSION[/namespaces/NS]/events). Only the method
// and path tell, as in the apiserver's own request info.
func isEventWrite(req *http.Request) bool {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis" && parts[1] == "events.k8s.io":
		parts = parts[3:]
	default:
		return false
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	return len(parts) > 0 && parts[0] == "events"
}

// leaseEventSink is the lock's event sink. The lock records "stopped
// leading" as the lease goes, and the fence refuses it by the time the
// broadcaster sends it, rightly: another replica may hold the lease then.
// The broadcaster would log that as an error and retry it for two minutes,
// on every clean shutdown; a refused Event is dropped instead, quietly.
type leaseEventSink struct{ record.EventSink }

func (s leaseEventSink) Create(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Create(e)
	return dropRefused(e, out, err)
}

func (s leaseEventSink) Update(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Update(e)
	return dropRefused(e, out, err)
}

func (s leaseEventSink) Patch(e *corev1.Event, patch []byte) (*corev1.Event, error) {
	out, err := s.EventSink.Patch(e, patch)
	return dropRefused(e, out, err)
}

// dropRefused turns the fence's refusal of e into success, so the
// broadcaster neither logs nor retries it, and passes any other outcome
// (out, err) on.
func dropRefused(e, out *corev1.Event, err error) (*corev1.Event, error) {
	if errors.Is(err, leasefence.ErrNotFresh) {
		ctrl.Log.WithName("leader-election").V(2).Info("Dropped an Event: this process no longer holds the lease", "reason", e.Reason, "message", e.Message)
		return e, nil
	}
	return out, err
}
