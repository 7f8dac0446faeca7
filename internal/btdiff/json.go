package btdiff

import (
	"bytes"
	"encoding/json"
	"strings"
)

// endMarker is what the script's last probe prints before it exits: in
// JSON output it stands for the blank lines that open the exit print.
const endMarker = "=== END\n"

// jsonToText turns a tool's -f json output into the text shape splitOutput
// and the explanations read: a printf's text as printed, a map as one
// "@name: VALUE" line or one "@name[KEY]: VALUE" line per entry in the
// order the tool wrote them (VALUE the JSON exactly as written), a print()
// of a value as "value: VALUE", anything else as its line.
func jsonToText(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			b.WriteString(line + "\n")
			continue
		}
		switch ev.Type {
		case "printf":
			var text string
			if json.Unmarshal(ev.Data, &text) != nil {
				b.WriteString(line + "\n")
			} else if text == endMarker {
				b.WriteString("\n\n\n")
			} else {
				b.WriteString(text)
			}
		case "value":
			b.WriteString("value: " + string(ev.Data) + "\n")
		case "map":
			if !writeJSONMap(&b, ev.Data) {
				b.WriteString(line + "\n")
			}
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// writeJSONMap writes the lines of a map event's data, {"@name": VALUE},
// where a keyed map's VALUE is an object of its entries. It reports false
// for data of another shape.
func writeJSONMap(b *strings.Builder, data json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || len(m) != 1 {
		return false
	}
	for name, v := range m {
		if !bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
			b.WriteString(name + ": " + string(v) + "\n")
			return true
		}
		// entries in the order written: decode the object token by token
		dec := json.NewDecoder(bytes.NewReader(v))
		if _, err := dec.Token(); err != nil {
			return false
		}
		for dec.More() {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				return false
			}
			var val json.RawMessage
			if dec.Decode(&val) != nil {
				return false
			}
			b.WriteString(name + "[" + key + "]: " + string(val) + "\n")
		}
	}
	return true
}
