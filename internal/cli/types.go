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

package cli

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the apiVersion of what the plugin prints with -o
// json|yaml|jsonpath|go-template: its reports are no API objects (nothing
// stores them), but they carry apiVersion and kind like one, so a script
// can tell what it reads and a later layout can get a version of its own.
var GroupVersion = schema.GroupVersion{Group: "cli.podnetwork.io", Version: "v1alpha1"}

// The kinds of the plugin's machine output.
const (
	KindStatusReport = "StatusReport"
	KindCheckReport  = "CheckReport"
	KindPlanReport   = "PlanReport"
	KindVersion      = "Version"
)

// typeMeta is the apiVersion and kind of a report of the given kind.
func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: kind}
}

// seconds is d in whole seconds, never negative: the form of every duration
// in the machine output (fields ending in Seconds); the human tables show
// it with Age.
func seconds(d time.Duration) int64 { return int64(max(d, 0) / time.Second) }

// ageOf is Age of a duration in seconds.
func ageOf(s int64) string { return Age(time.Duration(s) * time.Second) }

// The reports are runtime.Objects, so cli-runtime's printers print them.

// DeepCopyObject implements runtime.Object.
func (s *StatusReport) DeepCopyObject() runtime.Object { return deepCopy(s) }

// DeepCopyObject implements runtime.Object.
func (r *CheckReport) DeepCopyObject() runtime.Object { return deepCopy(r) }

// DeepCopyObject implements runtime.Object.
func (p *PlanReport) DeepCopyObject() runtime.Object { return deepCopy(p) }

// DeepCopyObject implements runtime.Object.
func (v *Version) DeepCopyObject() runtime.Object { return deepCopy(v) }

// deepCopy copies a report through its JSON form: the reports are plain
// data made to be printed as JSON, every field has a JSON name, so nothing
// is lost.
func deepCopy[T any](in *T) *T {
	if in == nil {
		return nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("copying a %T: %v", in, err))
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("copying a %T: %v", in, err))
	}
	return out
}
