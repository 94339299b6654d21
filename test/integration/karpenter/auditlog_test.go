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

package karpenter_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
)

// eviction is one eviction request as the apiserver's audit log tells it.
type eviction struct {
	// User is who asked: the impersonated user when there is one (the
	// operator and Karpenter run as impersonated ServiceAccounts).
	User      string
	Namespace string
	Pod       string
	// Code is the answer: 201 evicted, 429 refused by a
	// PodDisruptionBudget.
	Code   int
	DryRun bool
}

// Accepted reports whether the eviction was granted.
func (e eviction) Accepted() bool { return e.Code >= 200 && e.Code < 300 && !e.DryRun }

func (e eviction) String() string {
	return fmt.Sprintf("eviction of %s/%s by %s: %d", e.Namespace, e.Pod, e.User, e.Code)
}

// auditEvent is the part of an audit.k8s.io/v1 Event the checks read.
type auditEvent struct {
	Stage            string                     `json:"stage"`
	RequestURI       string                     `json:"requestURI"`
	Verb             string                     `json:"verb"`
	User             struct{ Username string }  `json:"user"`
	ImpersonatedUser *struct{ Username string } `json:"impersonatedUser"`
	ObjectRef        *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// readEvictions returns every eviction the audit log at path recorded,
// in the order the apiserver answered them.
func readEvictions(path string) ([]eviction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the audit log: %w", err)
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	var out []eviction
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("decoding an audit event: %w", err)
		}
		ref := ev.ObjectRef
		if ev.Stage != "ResponseComplete" || ev.Verb != "create" || ref == nil || ref.Resource != "pods" || ref.Subresource != "eviction" {
			continue
		}
		e := eviction{User: ev.User.Username, Namespace: ref.Namespace, Pod: ref.Name, DryRun: dryRun(ev.RequestURI)}
		if ev.ImpersonatedUser != nil {
			e.User = ev.ImpersonatedUser.Username
		}
		if ev.ResponseStatus != nil {
			e.Code = ev.ResponseStatus.Code
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	return out, nil
}

// dryRun reports whether a request URI asks for a dry run, which changes
// nothing even when granted.
func dryRun(requestURI string) bool {
	u, err := url.Parse(requestURI)
	return err == nil && u.Query().Has("dryRun")
}
