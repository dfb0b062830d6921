package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The names rpcc's own requests travel under cannot be taken by an application's service function. */
class ReservedNamesTest {
    @Test
    void theNamesOfRpccsOwnRequestsAreRefusedAndOtherRpccNamesAreNot() {
        for (String name : List.of("rpcc.return", "rpcc.return.failure", "rpcc.split", "rpcc.merge", "rpcc.merge.failed",
                "rpcc.merged", "rpcc.proxy.chain")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RpccServer.builder("s").service(name, p -> p), name);
            assertTrue(e.getMessage().contains("'" + name + "' is reserved"), e.getMessage());
        }
        // the repository's service functions are ordinary ones under the rpcc. prefix
        assertDoesNotThrow(() -> RpccServer.builder("s").service("rpcc.repository.get", p -> p));
        assertDoesNotThrow(() -> RpccServer.builder("s").service("rpcc.returned", p -> p));
    }
}
