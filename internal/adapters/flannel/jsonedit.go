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

package flannel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The keys the adapter writes.
const (
	keyNetwork     = "Network"
	keyIPv6Network = "IPv6Network"
	keyEnableIPv6  = "EnableIPv6"
)

var managedKeys = []string{keyNetwork, keyIPv6Network, keyEnableIPv6}

// object is a JSON object with the byte spans of its top-level members, so
// that a member's value can be replaced, or a member added, without
// re-encoding (and so reformatting) anything else.
type object struct {
	text    string
	open    int // offset of '{'
	members []member
}

type member struct {
	key              string
	keyStart         int    // offset of the key's opening quote
	valStart, valEnd int    // span of the value
	lead             string // whitespace between the preceding '{' or ',' and the key
	colon            string // text between the key and the value, such as `: `
}

// parseObject tokenizes text, which must be exactly one JSON object.
func parseObject(text string) (*object, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("net-conf.json is not a JSON object")
	}
	o := &object{text: text, open: int(dec.InputOffset()) - 1}
	pos := o.open + 1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("parsing net-conf.json: %w", err)
		}
		key, _ := tok.(string)
		keyEnd := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("parsing net-conf.json: %w", err)
		}
		m := member{key: key, valEnd: int(dec.InputOffset())}
		m.valStart = m.valEnd - len(raw)
		m.keyStart = pos + strings.IndexByte(text[pos:keyEnd], '"')
		lead := text[pos:m.keyStart]
		if i := strings.LastIndexByte(lead, ','); i >= 0 {
			lead = lead[i+1:]
		}
		m.lead = lead
		m.colon = text[keyEnd:m.valStart]
		o.members = append(o.members, m)
		pos = m.valEnd
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("net-conf.json is not a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("net-conf.json holds more than one JSON value")
	}
	return o, nil
}

// find returns the index of the member that encoding/json would decode into
// the struct field named key (keys match case-insensitively), or -1. Two
// such members are an error: flanneld would silently take the last one.
func (o *object) find(key string) (int, error) {
	found := -1
	for i, m := range o.members {
		if strings.EqualFold(m.key, key) {
			if found >= 0 {
				return -1, fmt.Errorf("net-conf.json sets %s more than once (%q and %q)", key, o.members[found].key, m.key)
			}
			found = i
		}
	}
	return found, nil
}

// set is one member to write: key and its JSON-encoded value. A missing key
// is added right after the member named after (itself added or existing), or
// first in the object when after is empty.
type set struct {
	key, value, after string
}

type edit struct {
	at, end int
	text    string
	seq     int
}

// apply writes the sets into the object and returns the new text. Existing
// members keep their key spelling and position; only their value bytes
// change.
func (o *object) apply(sets []set) (string, error) {
	var edits []edit
	// placed maps a key to the offset after which a member added right after
	// it goes, and the lead and colon to copy for it.
	type place struct {
		at          int
		lead, colon string
		front       bool // the member was added before the first one
	}
	placed := map[string]place{}
	for _, m := range o.members {
		placed[strings.ToLower(m.key)] = place{at: m.valEnd, lead: m.lead, colon: m.colon}
	}
	for _, s := range sets {
		i, err := o.find(s.key)
		if err != nil {
			return "", err
		}
		if i >= 0 {
			m := o.members[i]
			edits = append(edits, edit{at: m.valStart, end: m.valEnd, text: s.value, seq: len(edits)})
			continue
		}
		key, _ := json.Marshal(s.key)
		switch p, ok := placed[strings.ToLower(s.after)]; {
		case len(o.members) == 0:
			// An empty object: members are added inline, comma-separated.
			sep := ""
			if len(edits) > 0 {
				sep = ", "
			}
			edits = append(edits, edit{at: o.open + 1, end: o.open + 1, text: sep + string(key) + ": " + s.value, seq: len(edits)})
			placed[strings.ToLower(s.key)] = place{at: o.open + 1}
		case s.after == "" || !ok:
			first := o.members[0]
			edits = append(edits, edit{at: first.keyStart, end: first.keyStart,
				text: string(key) + first.colon + s.value + "," + first.lead, seq: len(edits)})
			placed[strings.ToLower(s.key)] = place{at: first.keyStart, lead: first.lead, colon: first.colon, front: true}
		case p.front:
			edits = append(edits, edit{at: p.at, end: p.at, text: string(key) + p.colon + s.value + "," + p.lead, seq: len(edits)})
			placed[strings.ToLower(s.key)] = p
		default:
			edits = append(edits, edit{at: p.at, end: p.at, text: "," + p.lead + string(key) + p.colon + s.value, seq: len(edits)})
			placed[strings.ToLower(s.key)] = p
		}
	}
	// Apply from the end so earlier offsets stay valid; of two insertions at
	// one offset the later one goes first, so the earlier one ends up before
	// it.
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].at != edits[j].at {
			return edits[i].at > edits[j].at
		}
		return edits[i].seq > edits[j].seq
	})
	out := o.text
	for _, e := range edits {
		out = out[:e.at] + e.text + out[e.end:]
	}
	return out, nil
}
