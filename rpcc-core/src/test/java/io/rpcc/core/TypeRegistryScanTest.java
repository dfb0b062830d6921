package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.core.scan.ScannedOrder;
import io.rpcc.core.scan.sub.ScannedQuote;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Types registered by {@link RpccType} and a package scan. */
class TypeRegistryScanTest {
    @Test
    void aScanRegistersTheAnnotatedClassesOfAPackageAndItsSubPackages() {
        TypeRegistry types = TypeRegistry.builder().scan("io.rpcc.core.scan").build();
        assertEquals(List.of(new TypeRegistry.Registration(ScannedOrder.class, TypeRegistry.nameDerivedId(ScannedOrder.class), null),
                new TypeRegistry.Registration(ScannedQuote.class, 321, null)), types.registrations());
    }

    @Test
    void registerAnnotatedRefusesAClassWithoutTheAnnotation() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TypeRegistry.builder().registerAnnotated(io.rpcc.core.scan.NotAType.class));
        assertEquals("io.rpcc.core.scan.NotAType is not annotated with @io.rpcc.core.RpccType", e.getMessage());
    }

    @Test
    void aScanOfNothingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TypeRegistry.builder().scan(" "));
    }
}
