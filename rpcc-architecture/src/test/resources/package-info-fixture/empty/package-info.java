/**
 *
 */
package empty;
