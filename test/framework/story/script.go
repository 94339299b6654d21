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

package story

import "time"

// Act is a part of the story; the e2e suite runs each as one spec.
type Act struct {
	// Title says what the act shows.
	Title string
	Steps []Step
}

// Step is one thing the admin does, then what must follow.
type Step struct {
	// Title says what the admin does.
	Title string
	// Do acts; nil when the step only waits.
	Do     func(*Env) error
	Checks []Check
}

// Mode says how a check is asserted.
type Mode int

const (
	// Eventually: the check comes to hold.
	Eventually Mode = iota
	// Now: the check holds as soon as the checks before it held.
	Now
	// Throughout: the check holds all through For.
	Throughout
)

// Check is something the story promises.
type Check struct {
	// What is promised, as the e2e suite reports it.
	What string
	Mode Mode
	// For is how long a Throughout check must hold.
	For time.Duration
	// Holds returns nil when the promise holds, else what was seen.
	Holds func(*Env) error
	// Says is what the demo tells once the check held; empty for nothing.
	Says string
	// Detail, when set, returns lines the demo prints under Says.
	Detail func(*Env) []string
}
