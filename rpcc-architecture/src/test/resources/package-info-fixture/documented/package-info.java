// Fixture: a package with Javadoc (after a line comment, before an annotation).
/**
 * A documented package.
 */
@Deprecated
package documented;
