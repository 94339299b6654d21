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

package nodeipam

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"go4.org/netipx"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/controllers/metrics"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
	"podnetwork.io/operator/internal/text"
)

const (
	// RecordName is the ConfigMap holding NodeIPAM's block store
	// (internal/nodeipam/blockstore), in Options.RecordNamespace. It is
	// its own object, not a field of the PodNetwork every plugin watches.
	RecordName = "podnetwork-nodeipam-blocks"
	// RecordDataKey is the binaryData key of the encoded store.
	RecordDataKey = "blocks"
	// LegacyRecordName is the issued-block record of older releases (one
	// prefix a line): read once, when there is no block store yet, and
	// deleted once the store is claimed.
	LegacyRecordName = "podnetwork-nodeipam-issued"

	// ClaimAnnotation on the store names the leader that wrote it last
	// since its rebuild: a random token each rebuild draws.
	ClaimAnnotation = "podnetwork.io/node-ipam-claim"
)

// The record's Role is namespaced, so it is in the chart
// (templates/rbac/node-ipam-record.yaml), not a marker here: markers make
// the cluster-wide role, and the operator needs no ConfigMap elsewhere.

// recordCheckInterval is how often the leader reads the record's metadata
// to find a rewrite by someone else between two writes of its own: a
// record rewritten with older content must not wait for this leader's next
// write (or its death, when the next leader would trust it) to be found.
// One GET of metadata per interval.
const recordCheckInterval = 5 * time.Second

// recordStore reads and writes the record. Every write is conditional on
// the resourceVersion this leader last wrote, and the leader checks that
// version every recordCheckInterval: when the API holds another one
// someone else wrote the record (nodeipamcore.JudgeRecord): a former
// leader's write after a new leader claimed it fails with a conflict, and
// the new leader finds an export re-applied, a GitOps sync or a restore.
// The state is then suspended at once, and the rebuilder recovers
// (rebuilder.recover). One write or check at a time.
type recordStore struct {
	client  client.Client // writes
	reader  client.Reader // API server reads, never the cache
	key     types.NamespacedName
	state   *nodeipamcore.State
	signals *signals // recovery

	mu    sync.Mutex
	claim string
	// rv and stored are the resourceVersion and data of this leader's last
	// stored write (or of a version it adopted); unknown are the data of
	// writes since whose outcome is unknown.
	rv      string
	stored  []byte
	unknown [][]byte
	// coarsened is set while the last write was coarsened, so the event
	// says when it starts, not every write.
	coarsened bool
	// recorder emits BlockStoreCoarsened; nil in tests.
	recorder events.EventRecorder
	metrics  *metrics.Metrics
}

// read returns the record from the API server; nil when there is none.
func (s *recordStore) read(ctx context.Context) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	if err := s.reader.Get(ctx, s.key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the issued-block record %s: %w", s.key, err)
	}
	return cm, nil
}

// readLegacy returns the issued-block record of an older release from the
// API server; nil when there is none.
func (s *recordStore) readLegacy(ctx context.Context) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	key := types.NamespacedName{Namespace: s.key.Namespace, Name: LegacyRecordName}
	if err := s.reader.Get(ctx, key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the issued-block record %s of an older release: %w", key, err)
	}
	return cm, nil
}

// deleteLegacy deletes the issued-block record of an older release once
// the block store replaced it, conditional on the version the rebuild
// read: the store is the one truth from then on.
func (s *recordStore) deleteLegacy(ctx context.Context, read *corev1.ConfigMap) error {
	err := s.client.Delete(ctx, read, client.Preconditions{UID: &read.UID, ResourceVersion: &read.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the issued-block record %s/%s of an older release: %w", read.Namespace, read.Name, err)
	}
	return nil
}

// claimRecord stores content under a new claim of this leader, replacing
// the store read at the rebuild (nil: none), conditional on its
// resourceVersion. Any change of the store since fails the rebuild, which
// starts over.
func (s *recordStore) claimRecord(ctx context.Context, read *corev1.ConfigMap, content nodeipamcore.RecordWrite) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claim = rand.Text()
	s.rv, s.stored, s.unknown = "", nil, nil
	if read != nil {
		s.rv = read.ResourceVersion
	}
	if err := s.writeLocked(ctx, content); err != nil {
		return fmt.Errorf("claiming the issued-block record %s: %w", s.key, err)
	}
	return nil
}

// sync writes the record State wants, if it differs from what the API
// holds. It returns an error wrapping nodeipamcore.ErrRecordRewritten when
// someone else wrote the record since this leader did.
func (s *recordStore) sync(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		w, ok := s.state.BeginRecordWrite()
		if !ok {
			return nil
		}
		s.noteCoarsening(ctx, w.Coarsened)
		err := s.writeLocked(ctx, w)
		switch {
		case err == nil:
			s.state.EndRecordWrite(w.Issued, nodeipamcore.RecordStored)
			return nil
		case apierrors.IsNotFound(err) && attempt == 0:
			// Deleted: create it again, from what this leader knows. If
			// someone created it meanwhile the create fails, and the
			// re-read finds the store rewritten.
			s.state.EndRecordWrite(w.Issued, nodeipamcore.RecordNotStored)
			s.rv = ""
		case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
			s.state.EndRecordWrite(w.Issued, nodeipamcore.RecordNotStored)
			if rerr := s.rereadLocked(ctx); rerr != nil || attempt > 0 {
				return errors.Join(fmt.Errorf("writing the block store %s: %w", s.key, err), rerr)
			}
		case certainlyNotStored(err):
			s.state.EndRecordWrite(w.Issued, nodeipamcore.RecordNotStored)
			return fmt.Errorf("writing the block store %s: %w", s.key, err)
		default:
			s.state.EndRecordWrite(w.Issued, nodeipamcore.RecordUnknown)
			return fmt.Errorf("writing the block store %s, outcome unknown: %w", s.key, err)
		}
	}
}

// check reads the record's metadata and, when its resourceVersion moved
// since this leader's last write, the whole record, to find a rewrite by
// someone else between two writes (see recordCheckInterval). It returns an
// error wrapping nodeipamcore.ErrRecordRewritten when it found one.
func (s *recordStore) check(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claim == "" || !s.state.IsOpen() {
		return nil // not claimed yet, or a recovery is under way
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	seen := nodeipamcore.RecordVersion{MetadataOnly: true}
	switch err := s.reader.Get(ctx, s.key, meta); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("checking the issued-block record %s: %w", s.key, err)
	default:
		seen.Exists, seen.ResourceVersion, seen.Claim = true, meta.ResourceVersion, meta.Annotations[ClaimAnnotation]
	}
	if verdict, _ := nodeipamcore.JudgeRecord(seen, s.own()); verdict == nodeipamcore.RecordUnchanged {
		return nil
	}
	return s.rereadLocked(ctx)
}

// rereadLocked reads the whole record after a conflict, or a check that
// found its resourceVersion moved, and judges who wrote it. A version of
// this leader's (a write whose answer was lost, an edit of metadata only)
// is adopted, a deleted record is written again; a record someone else
// rewrote suspends the state and starts the recovery.
func (s *recordStore) rereadLocked(ctx context.Context) error {
	cm, err := s.read(ctx)
	if err != nil {
		return err
	}
	seen := nodeipamcore.RecordVersion{}
	if cm != nil {
		seen = nodeipamcore.RecordVersion{Exists: true, ResourceVersion: cm.ResourceVersion, Claim: cm.Annotations[ClaimAnnotation], Data: cm.BinaryData[RecordDataKey]}
	}
	verdict, finding := nodeipamcore.JudgeRecord(seen, s.own())
	switch verdict {
	case nodeipamcore.RecordUnchanged:
		return nil
	case nodeipamcore.RecordDeleted:
		// Nothing is lost: this leader knows every block it handed out.
		// Until it wrote the record again, no block counts as recorded.
		s.rv, s.stored, s.unknown = "", nil, nil
		s.state.RecordReread(&netipx.IPSet{})
		s.signals.recordAhead()
		return nil
	case nodeipamcore.RecordAdopt:
		content, _, err := blockstore.Decode(cm.BinaryData[RecordDataKey])
		if err != nil {
			return fmt.Errorf("the block store %s changed under this leader's claim: %w", s.key, err)
		}
		s.rv, s.stored, s.unknown = cm.ResourceVersion, cm.BinaryData[RecordDataKey], nil
		s.state.RecordReread(content.Issued)
		return nil
	}
	if s.state.Suspend() {
		s.signals.recover(finding)
	}
	return fmt.Errorf("%s: %s: %w", s.key, finding, nodeipamcore.ErrRecordRewritten)
}

// own is what this leader knows of its writes, for JudgeRecord.
func (s *recordStore) own() nodeipamcore.RecordWrites {
	return nodeipamcore.RecordWrites{ResourceVersion: s.rv, Claim: s.claim, Stored: s.stored, Unknown: s.unknown}
}

// writeLocked creates the store (no resourceVersion known) or updates it
// conditionally, with this leader's claim.
func (s *recordStore) writeLocked(ctx context.Context, w nodeipamcore.RecordWrite) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       s.key.Namespace,
			Name:            s.key.Name,
			ResourceVersion: s.rv,
			Labels:          map[string]string{"app.kubernetes.io/managed-by": "podnetwork-operator"},
			Annotations:     map[string]string{ClaimAnnotation: s.claim},
		},
		BinaryData: map[string][]byte{RecordDataKey: w.Data},
	}
	var err error
	if s.rv == "" {
		err = s.client.Create(ctx, cm, client.FieldOwner(FieldManager))
	} else {
		err = s.client.Update(ctx, cm, client.FieldOwner(FieldManager))
	}
	switch {
	case err == nil:
		s.rv, s.stored, s.unknown = cm.ResourceVersion, w.Data, nil
	case !certainlyNotStored(err):
		// Every write since the last stored one is conditional on the same
		// resourceVersion, so at most one of them landed, any one. A few
		// are kept: should an older one have landed, the store counts as
		// rewritten, which costs a delay, never a block.
		s.unknown = append(s.unknown, w.Data)
		if len(s.unknown) > maxUnknownWrites {
			s.unknown = s.unknown[1:]
		}
	}
	return err
}

// noteCoarsening counts a write the size budget coarsened and says so in
// an event and a log line when it starts.
func (s *recordStore) noteCoarsening(ctx context.Context, co blockstore.Coarsening) {
	if !co.Any() {
		s.coarsened = false
		return
	}
	s.metrics.BlockStoreCoarsened()
	if s.coarsened {
		return
	}
	s.coarsened = true
	msg := fmt.Sprintf("the block store %s is over its size budget of %d bytes: %d freed blocks are stored as issued and %d free blocks "+
		"fill the gaps between issued runs; after a fail-over they wait one full recycle delay", s.key, blockstore.DefaultBudget, co.FreedAsIssued, co.GapBlocksFilled)
	ctrl.LoggerFrom(ctx).Info(msg)
	if s.recorder != nil {
		s.recorder.Eventf(&corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: s.key.Namespace, Name: s.key.Name},
			nil, corev1.EventTypeWarning, BlockStoreCoarsenedReason, "WriteBlockStore", "%s", text.Message(msg))
	}
}

// maxUnknownWrites bounds the writes of unknown outcome recordStore
// remembers, each up to blockstore.DefaultBudget.
const maxUnknownWrites = 4
