package io.rpcc.core.spi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an internal type that one rpcc module offers to rpcc's other modules: the engine SPI. rpcc's
 * modules are layered (API and SPI; transport; runtime; then the client, server and repository
 * facades, see the Layout page of the contributor's guide), and a module may use the internal
 * classes of another only where they carry this annotation; an architecture test fails the build
 * otherwise. So the contract between the layers is written down in one place (the types that carry
 * it) and grows only on purpose.
 *
 * <p>It is not for applications, nor for plug-ins (which use the API and the function SPI of this
 * package): these types live in {@code internal} packages and change with rpcc's own modules, in any
 * release. Changing one is a change to every rpcc module that uses it; use the version of
 * {@code rpcc-bom} for all of them.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface EngineSpi {
}
