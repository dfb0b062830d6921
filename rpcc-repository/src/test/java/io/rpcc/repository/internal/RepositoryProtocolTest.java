package io.rpcc.repository.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.repository.InMemoryChainingFunctionRepository;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The repository's messages: their exact shapes (the wire contract) and what a repository does with wrong ones. */
class RepositoryProtocolTest {
    static final ChainingFunctionSource SOURCE = ChainingFunctionSource.javascript("(s, r) => rpcc.end(r)");

    @Test
    void theFunctionNamesAndMessageShapesAreTheWireContract() {
        assertEquals("rpcc.repository.put", RepositoryProtocol.PUT);
        assertEquals("rpcc.repository.get", RepositoryProtocol.GET);
        assertEquals(List.of("JS", "(s, r) => rpcc.end(r)"), RepositoryProtocol.encodeSource(SOURCE));
        assertEquals(Optional.of(SOURCE), RepositoryProtocol.decodeSource(List.of("JS", "(s, r) => rpcc.end(r)")));
        assertEquals(Optional.of(SOURCE.id()), RepositoryProtocol.decodeId(SOURCE.id()));
    }

    @Test
    void anythingButThoseShapesDecodesToNothing() {
        for (Object wrong : new Object[] {null, 42, "JS", List.of(), List.of("JS"), List.of("JS", 1), List.of(1, "x"),
                List.of("js", "x"), List.of("COBOL", "x"), List.of("JS", "x", "y"), new String[] {"JS", "x"}}) {
            assertEquals(Optional.empty(), RepositoryProtocol.decodeSource(wrong), String.valueOf(wrong));
        }
        for (Object wrong : new Object[] {null, 42, "", List.of("js:abc")}) {
            assertEquals(Optional.empty(), RepositoryProtocol.decodeId(wrong), String.valueOf(wrong));
        }
    }

    @Test
    void onlySourcesAreSent() {
        assertThrows(IllegalArgumentException.class, () -> RepositoryProtocol.encodeSource(ChainingFunctionSource.NONE));
        assertThrows(IllegalArgumentException.class, () -> RepositoryProtocol.encodeSource(SOURCE.asReference("repo")));
    }

    @Test
    void anEndpointStoresAndServesAndRejectsWrongRequestsSayingWhatItTakes() {
        RepositoryEndpoint endpoint = new RepositoryEndpoint(new InMemoryChainingFunctionRepository());
        assertNull(endpoint.get(SOURCE.id()));
        assertEquals(SOURCE.id(), endpoint.put(RepositoryProtocol.encodeSource(SOURCE)));
        assertEquals(List.of("JS", SOURCE.source()), endpoint.get(SOURCE.id()));

        IllegalArgumentException put = assertThrows(IllegalArgumentException.class, () -> endpoint.put("x"));
        assertEquals("rpcc.repository.put takes [language, source] with a language of [JAVA, JS], got String x",
                put.getMessage());
        IllegalArgumentException get = assertThrows(IllegalArgumentException.class, () -> endpoint.get(List.of(1)));
        assertTrue(get.getMessage().startsWith("rpcc.repository.get takes a chaining-function id, got "), get.getMessage());
    }

    @Test
    void longMessagesAreCutInErrors() {
        char[] big = new char[10_000];
        Arrays.fill(big, 'x');
        String described = RepositoryProtocol.describe(new String(big));
        assertEquals("String " + "x".repeat(80) + "...", described);
    }
}
