/*
 * Fixture: a plain comment, not Javadoc.
 */
package commented;
