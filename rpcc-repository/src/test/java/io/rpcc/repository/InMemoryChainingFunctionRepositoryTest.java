package io.rpcc.repository;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainingFunctionSource;
import org.junit.jupiter.api.Test;

class InMemoryChainingFunctionRepositoryTest {
    @Test
    void storesByContentIdAndANewSourceIsANewId() {
        ChainingFunctionRepository repo = new InMemoryChainingFunctionRepository();
        ChainingFunctionSource v1 = ChainingFunctionSource.java("public class A {}");
        ChainingFunctionSource v2 = ChainingFunctionSource.java("public class A { }");
        String id1 = repo.put(v1);
        assertEquals(id1, repo.put(ChainingFunctionSource.java("public class A {}")), "same source, same id");
        String id2 = repo.put(v2);
        assertNotEquals(id1, id2);
        assertTrue(id1.startsWith("java:"));
        assertEquals(v1.source(), repo.get(id1).orElseThrow().source());
        assertEquals(v2.source(), repo.get(id2).orElseThrow().source());
        assertTrue(repo.get("java:missing").isEmpty());
        assertThrows(IllegalArgumentException.class, () -> repo.put(ChainingFunctionSource.SAME));
    }
}
