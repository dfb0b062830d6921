package io.rpcc.repository;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainingFunctionSource;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemChainingFunctionRepositoryTest {
    @TempDir
    Path dir;

    @Test
    void storesByIdAndReadsBackAfterARestart() {
        ChainingFunctionSource f = ChainingFunctionSource.java("public class A { }");
        String id = new FileSystemChainingFunctionRepository(dir).put(f);
        assertEquals(f.id(), id);
        FileSystemChainingFunctionRepository again = new FileSystemChainingFunctionRepository(dir);
        assertEquals(f.source(), again.get(id).orElseThrow().source());
        assertTrue(again.get(ChainingFunctionSource.java("public class B { }").id()).isEmpty());
    }

    @Test
    void detectsCorruptionAndRefusesBadIds() throws Exception {
        FileSystemChainingFunctionRepository repo = new FileSystemChainingFunctionRepository(dir);
        String id = repo.put(ChainingFunctionSource.java("public class A { }"));
        try (var files = Files.list(dir)) {
            Files.writeString(files.findFirst().orElseThrow(), "public class Tampered { }");
        }
        assertThrows(IllegalStateException.class, () -> repo.get(id));
        assertThrows(IllegalArgumentException.class, () -> repo.get("java:../../etc/passwd"));
    }
}
