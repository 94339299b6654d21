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

// Package story is the admin's story of podnetwork-operator as one script:
// a PodNetwork with one range is Pending until every consumer acknowledged
// it, then Active and nodes join; the range fills up and a second one is
// added; the first is removed, Draining until its nodes are replaced, then
// Released and purged; the PodNetwork is Ready.
//
// `make demo` (test/e2e/demo) runs the script and prints every step with a
// timestamp; `make test-e2e` (test/e2e) runs the same script and asserts
// every check with gomega. The script uses no gomega itself: an action
// returns an error, a check returns nil when it holds and otherwise what it
// saw.
package story
