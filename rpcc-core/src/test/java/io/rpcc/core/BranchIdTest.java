package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Branch ids: the root is empty, splits extend it, depth is bounded. */
class BranchIdTest {

    @Test
    void rootAndChildren() {
        BranchId root = BranchId.root();
        assertTrue(root.isRoot());
        assertEquals("root", root.toString());
        assertSame(root, BranchId.of());
        BranchId b = root.child(0).child(2);
        assertEquals(List.of(0, 2), b.indexes());
        assertEquals(2, b.depth());
        assertEquals("0.2", b.toString());
        assertEquals(BranchId.of(0, 2), b);
        assertEquals(BranchId.of(0), b.parent());
        assertSame(root, b.parent().parent());
        assertFalse(b.isRoot());
        assertThrows(IllegalStateException.class, root::parent);
    }

    @Test
    void boundedAndNotNegative() {
        assertThrows(IllegalArgumentException.class, () -> BranchId.of(-1));
        BranchId deep = BranchId.of(new int[BranchId.MAX_DEPTH]);
        assertThrows(IllegalArgumentException.class, () -> deep.child(0));
    }
}
