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
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

const (
	// RecordName is the ConfigMap holding the issued-block record
	// (internal/nodeipam/record.go), in Options.RecordNamespace. It is its
	// own object, not a field of the PodNetwork every plugin watches.
	RecordName = "podnetwork-nodeipam-issued"

	// ClaimAnnotation on the record names the leader that wrote it last
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
	stored  map[string]string
	unknown []map[string]string
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

// claimRecord stores content under a new claim of this leader, replacing
// the record read at the rebuild (nil: none), conditional on its
// resourceVersion. Any change of the record since fails the rebuild, which
// starts over.
func (s *recordStore) claimRecord(ctx context.Context, read *corev1.ConfigMap, content *netipx.IPSet) error {
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
		content, ok := s.state.BeginRecordWrite()
		if !ok {
			return nil
		}
		err := s.writeLocked(ctx, content)
		switch {
		case err == nil:
			s.state.EndRecordWrite(content, nodeipamcore.RecordStored)
			return nil
		case apierrors.IsNotFound(err) && attempt == 0:
			// Deleted: create it again, from what this leader knows. If
			// someone created it meanwhile the create fails, and the
			// re-read finds the record rewritten.
			s.state.EndRecordWrite(content, nodeipamcore.RecordNotStored)
			s.rv = ""
		case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
			s.state.EndRecordWrite(content, nodeipamcore.RecordNotStored)
			if rerr := s.rereadLocked(ctx); rerr != nil || attempt > 0 {
				return errors.Join(fmt.Errorf("writing the issued-block record %s: %w", s.key, err), rerr)
			}
		case certainlyNotStored(err):
			s.state.EndRecordWrite(content, nodeipamcore.RecordNotStored)
			return fmt.Errorf("writing the issued-block record %s: %w", s.key, err)
		default:
			s.state.EndRecordWrite(content, nodeipamcore.RecordUnknown)
			return fmt.Errorf("writing the issued-block record %s, outcome unknown: %w", s.key, err)
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
		seen = nodeipamcore.RecordVersion{Exists: true, ResourceVersion: cm.ResourceVersion, Claim: cm.Annotations[ClaimAnnotation], Data: cm.Data}
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
		set, err := nodeipamcore.DecodeRecord(cm.Data)
		if err != nil {
			return fmt.Errorf("the issued-block record %s changed under this leader's claim: %w", s.key, err)
		}
		s.rv, s.stored, s.unknown = cm.ResourceVersion, cm.Data, nil
		s.state.RecordReread(set)
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

// writeLocked creates the record (no resourceVersion known) or updates it
// conditionally, with this leader's claim.
func (s *recordStore) writeLocked(ctx context.Context, content *netipx.IPSet) error {
	data := nodeipamcore.EncodeRecord(content)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       s.key.Namespace,
			Name:            s.key.Name,
			ResourceVersion: s.rv,
			Labels:          map[string]string{"app.kubernetes.io/managed-by": "podnetwork-operator"},
			Annotations:     map[string]string{ClaimAnnotation: s.claim},
		},
		Data: data,
	}
	var err error
	if s.rv == "" {
		err = s.client.Create(ctx, cm, client.FieldOwner(FieldManager))
	} else {
		err = s.client.Update(ctx, cm, client.FieldOwner(FieldManager))
	}
	switch {
	case err == nil:
		s.rv, s.stored, s.unknown = cm.ResourceVersion, data, nil
	case !certainlyNotStored(err):
		// Every write since the last stored one is conditional on the same
		// resourceVersion, so at most one of them landed, any one. A few
		// are kept: should an older one have landed, the record counts as
		// rewritten, which costs a delay, never a block.
		s.unknown = append(s.unknown, data)
		if len(s.unknown) > maxUnknownWrites {
			s.unknown = s.unknown[1:]
		}
	}
	return err
}

// maxUnknownWrites bounds the writes of unknown outcome recordStore
// remembers, each up to 730 KB (internal/nodeipam/record.go).
const maxUnknownWrites = 4
