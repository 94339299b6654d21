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

package kubeproxy

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// setTopLevelScalar returns text with the top-level mapping key set to value,
// changing no other byte: an existing value is replaced in place in its
// original quoting style, a missing key is added on a line of its own before
// the first top-level key that sorts after it (kubeadm writes keys in
// alphabetical order), or at the end. Comments, key order, indentation and
// unknown fields all survive.
//
// value must be safe as a plain YAML scalar (CIDRs and commas are); an empty
// value is written as "". Layouts that cannot be edited in place (a flow
// mapping, a block or multi-line scalar, an anchor, an alias, a tag, a merge
// key, a duplicate key, several documents) are errors rather than a
// reformatted file.
func setTopLevelScalar(text, key, value string) (string, error) {
	m, err := topLevelMapping(text)
	if err != nil {
		return "", err
	}
	var keyNode, valNode *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" {
			return "", errors.New("YAML merge keys (<<) are not supported")
		}
		if k.Kind == yaml.ScalarNode && k.Value == key {
			if keyNode != nil {
				return "", fmt.Errorf("key %q appears more than once", key)
			}
			keyNode, valNode = k, m.Content[i+1]
		}
	}
	if keyNode == nil {
		return insertTopLevel(text, m, key, value)
	}
	return replaceScalar(text, key, valNode, value)
}

// topLevelMapping parses text as a single YAML document holding a block
// mapping.
func topLevelMapping(text string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("the file holds more than one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a YAML mapping")
	}
	m := doc.Content[0]
	if m.Style&yaml.FlowStyle != 0 {
		return nil, errors.New("a flow-style ({...}) top-level mapping cannot be edited in place")
	}
	return m, nil
}

// replaceScalar overwrites the single-line scalar v, the value of key.
func replaceScalar(text, key string, v *yaml.Node, value string) (string, error) {
	if err := notRewritable(key, v); err != nil {
		return "", err
	}
	start, ok := offsetOf(text, v.Line, v.Column)
	if !ok {
		return "", fmt.Errorf("locating the value of %q", key)
	}
	var end int
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		end = quotedEnd(text, start, '"')
	case v.Style&yaml.SingleQuotedStyle != 0:
		end = quotedEnd(text, start, '\'')
	case v.Value == "" && v.Tag == "!!null":
		// "key:" with no value: the position is right after the colon.
		return text[:start] + " " + render(value, 0) + text[start:], nil
	case strings.HasPrefix(text[start:], v.Value):
		end = start + len(v.Value)
	default:
		// A plain scalar folded over several lines: its value has a
		// space where the text has a line break.
		end = -1
	}
	if end < 0 || strings.ContainsAny(text[start:end], "\r\n") {
		return "", fmt.Errorf("the value of %q spans several lines, which cannot be edited in place; write it on one line", key)
	}
	return text[:start] + render(value, v.Style) + text[end:], nil
}

// notRewritable says what v, the value of key, is when it is something the
// adapter will not overwrite in place. Each case names the YAML feature, so
// the admin knows what to change in the file: yaml.v3 reports the position
// of an anchor or tag, not of the value, so without these checks such values
// would fail later with a misleading message.
func notRewritable(key string, v *yaml.Node) error {
	switch {
	case v.Kind == yaml.AliasNode:
		return fmt.Errorf("the value of %q is the YAML alias *%s, which the adapter will not rewrite; write the value itself", key, v.Value)
	case v.Kind != yaml.ScalarNode:
		return fmt.Errorf("the value of %q is a YAML %s, not a single string", key, kindName(v.Kind))
	case v.Anchor != "":
		return fmt.Errorf("the value of %q carries the YAML anchor &%s, which the adapter will not rewrite "+
			"(aliases *%s would change with it); remove the anchor", key, v.Anchor, v.Anchor)
	case v.Style&yaml.TaggedStyle != 0:
		return fmt.Errorf("the value of %q carries the YAML tag %s, which the adapter will not rewrite; remove the tag", key, v.Tag)
	case v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return fmt.Errorf("the value of %q is a block scalar (| or >), which cannot be edited in place; write it on one line", key)
	}
	return nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	default:
		return "document"
	}
}

// insertTopLevel adds "key: value" as a top-level line.
func insertTopLevel(text string, m *yaml.Node, key, value string) (string, error) {
	if len(m.Content) == 0 {
		return "", errors.New("the top-level mapping is empty")
	}
	indent := strings.Repeat(" ", m.Content[0].Column-1)
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
	}
	line := indent + key + ": " + render(value, 0) + eol
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value <= key {
			continue
		}
		at, ok := offsetOf(text, k.Line, 1)
		if !ok {
			return "", fmt.Errorf("locating key %q", k.Value)
		}
		// Keep a comment that sits right above the next key with that key.
		for at > 0 {
			prev := strings.LastIndexByte(text[:at-1], '\n') + 1
			if !strings.HasPrefix(strings.TrimSpace(text[prev:at]), "#") {
				break
			}
			at = prev
		}
		return text[:at] + line + text[at:], nil
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += eol
	}
	return text + line, nil
}

// render writes value in the given scalar style. An empty value is always
// quoted: a plain empty scalar would be null.
func render(value string, style yaml.Style) string {
	switch {
	case style&yaml.SingleQuotedStyle != 0:
		return "'" + value + "'"
	case style&yaml.DoubleQuotedStyle != 0, value == "":
		return `"` + value + `"`
	default:
		return value
	}
}

// quotedEnd returns the offset just after the quoted scalar that starts at
// text[start] (a quote character), or -1 if it does not end on its line.
// Double quotes escape with a backslash, single quotes by doubling.
func quotedEnd(text string, start int, quote byte) int {
	for i := start + 1; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			return -1
		case quote == '"' && c == '\\':
			i++
		case c == quote && quote == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++
		case c == quote:
			return i + 1
		}
	}
	return -1
}

// offsetOf converts a 1-based line and column, counted in characters as
// yaml.v3 reports them, into a byte offset of text.
func offsetOf(text string, line, col int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(text) || text[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRuneInString(text[off:])
		off += size
	}
	return off, true
}
