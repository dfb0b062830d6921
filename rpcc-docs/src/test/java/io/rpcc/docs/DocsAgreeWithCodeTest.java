package io.rpcc.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.VersionRange;
import io.rpcc.core.runtime.NodeBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The figures the reference docs state about the wire (the protocol version, the version range a
 * build speaks, the HELLO's version byte, the default nesting limit of values) are the code's. Each
 * pattern must be found at least once, so a reworded sentence fails here instead of going stale.
 */
class DocsAgreeWithCodeTest {

    @Test
    void theProtocolDocsNameTheVersionsTheCodeSpeaks() throws IOException {
        String protocol = read("docs/reference/protocol.md");
        assertEquals(List.of(String.valueOf(FrameType.PROTOCOL_VERSION)),
                all(protocol, "^# The rpcc wire protocol, version (\\d+)$"), "protocol.md's title");
        assertEquals(List.of(String.valueOf(FrameType.PROTOCOL_VERSION)),
                all(protocol, "in this version: `(\\d+)`"), "protocol.md's frame version");
        VersionRange supported = VersionRange.SUPPORTED;
        assertEquals(List.of(supported.min() + ".." + supported.max()),
                all(protocol, "\\(this build: `(\\d+\\.\\.\\d+)`\\)"), "protocol.md's HELLO range");
        assertEquals(List.of(String.valueOf(FrameType.HELLO_VERSION)),
                all(protocol, "version byte is always (\\d+)\\*\\*"), "protocol.md's HELLO version byte");
    }

    @Test
    void everyDocStatesTheValueDepthLimitTheCodeHas() throws IOException {
        String expected = String.valueOf(Serialization.DEFAULT_MAX_DEPTH);
        assertEquals(Serialization.DEFAULT_MAX_DEPTH, NodeBuilder.DEFAULT_MAX_VALUE_DEPTH);
        List<String> stated = new ArrayList<>();
        stated.addAll(all(read("docs/reference/protocol.md"), "`maxValueDepth` levels \\(default (\\d+)\\)"));
        stated.addAll(all(read("docs/reference/protocol.md"), "\\| value nesting \\| (\\d+) levels"));
        stated.addAll(all(read("docs/reference/security.md"), "values are decoded at most (\\d+) levels deep"));
        stated.addAll(all(read("docs/reference/security.md"), "`maxValueDepth\\(levels\\)` \\| (\\d+)"));
        stated.addAll(all(read("docs/guides/security-and-sandbox.md"), "at most (\\d+) levels deep"));
        stated.addAll(all(read("docs/reference/node-properties.md"), "`maxValueDepth\\(levels\\)` \\| \\d+, (\\d+)"));
        stated.addAll(all(read("docs/reference/node-properties.md"), "`rpcc.limits.max-value-depth` \\| `\\d+`, `(\\d+)`"));
        assertEquals(7, stated.size(), "each of the seven statements is found: " + stated);
        for (String figure : stated) {
            assertEquals(expected, figure, "a doc states another value depth limit than the code: " + stated);
        }
    }

    private static String read(String relative) throws IOException {
        return Files.readString(DocSnippetsTest.root().resolve(relative));
    }

    private static List<String> all(String text, String regex) {
        Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        assertFalse(found.isEmpty(), "no match for /" + regex + "/: the sentence was reworded; update this test");
        return found;
    }
}
