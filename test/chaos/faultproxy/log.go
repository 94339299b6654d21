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

package faultproxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Entry is one mutating request as the proxy saw it.
type Entry struct {
	// Process is the name of the listener the request came in on.
	Process string
	// Start is when the request arrived, End when its answer (or reset)
	// went out.
	Start, End time.Time
	// Verb is the Kubernetes verb (create, update, patch, delete,
	// deletecollection; a server-side apply is a patch).
	Verb, Resource, Subresource, Namespace, Name string
	// Code is what the apiserver answered, or the injected error when the
	// request was not forwarded; 0 when nothing answered (a reset before
	// forwarding, or the apiserver unreachable): the outcome is unknown.
	Code int
	// RV is the resourceVersion of the object in a 2xx answer.
	RV int64
	// HolderIdentity is spec.holderIdentity of a Lease in a 2xx answer.
	HolderIdentity string
	// Injected is the fault the proxy added ("" for none).
	Injected Fault
}

// Log collects the entries of every listener of a proxy.
type Log struct {
	mu      sync.Mutex
	entries []Entry
}

func (l *Log) add(e Entry) {
	l.mu.Lock()
	l.entries = append(l.entries, e)
	l.mu.Unlock()
}

// Entries returns the entries so far, by start time.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	out := slices.Clone(l.entries)
	l.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Entry) int { return a.Start.Compare(b.Start) })
	return out
}

// Identities maps every Lease holder identity a process wrote to the
// process: leader election writes its identity into each Lease it creates
// or renews.
func (l *Log) Identities() map[string]string {
	out := map[string]string{}
	for _, e := range l.Entries() {
		if e.Resource == "leases" && e.HolderIdentity != "" && e.Code >= 200 && e.Code < 300 {
			out[e.HolderIdentity] = e.Process
		}
	}
	return out
}

// objectMeta is what the log keeps of an answer.
type objectMeta struct {
	name   string
	rv     int64
	holder string
}

var deserializer = serializer.NewCodecFactory(clientgoscheme.Scheme).UniversalDeserializer()

// decodeMeta reads name, resourceVersion and a Lease's holder from an
// answer in JSON (every type) or protobuf (built-in types); anything else
// yields nothing.
func decodeMeta(contentType, encoding string, body []byte) objectMeta {
	if strings.EqualFold(encoding, "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return objectMeta{}
		}
		if body, err = io.ReadAll(zr); err != nil {
			return objectMeta{}
		}
	}
	if strings.HasPrefix(contentType, "application/json") {
		var obj struct {
			Metadata struct {
				Name            string `json:"name"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
			Spec struct {
				HolderIdentity *string `json:"holderIdentity"`
			} `json:"spec"`
		}
		if json.Unmarshal(body, &obj) != nil {
			return objectMeta{}
		}
		m := objectMeta{name: obj.Metadata.Name, rv: parseRV(obj.Metadata.ResourceVersion)}
		if obj.Spec.HolderIdentity != nil {
			m.holder = *obj.Spec.HolderIdentity
		}
		return m
	}
	obj, _, err := deserializer.Decode(body, nil, nil)
	if err != nil {
		return objectMeta{}
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return objectMeta{}
	}
	m := objectMeta{name: acc.GetName(), rv: parseRV(acc.GetResourceVersion())}
	if l, ok := obj.(*coordinationv1.Lease); ok && l.Spec.HolderIdentity != nil {
		m.holder = *l.Spec.HolderIdentity
	}
	return m
}

func parseRV(s string) int64 {
	rv, _ := strconv.ParseInt(s, 10, 64)
	return rv
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
