// Package conf owns ebb's configuration: reading Hadoop configuration XML
// (mr3-site.xml, and core/yarn/hdfs-site.xml from $HADOOP_CONF_DIR), the one
// table of keys ebb understands with their defaults and allowed values, the
// EBB_ environment and --set overrides, and validation that turns a bad
// value into one clear line naming where it came from.
//
// Layers, lowest first:
//
//	defaults (keys.go)
//	< $HADOOP_CONF_DIR/core-site.xml, yarn-site.xml, hdfs-site.xml
//	< mr3-site.xml (--conf, else $EBB_CONF_DIR, else $HADOOP_CONF_DIR)
//	< EBB_* environment variables
//	< --set key=value
//
// A key marked <final> in a file keeps that value against every later
// layer. Values are expanded (${key}, ${env.NAME}) after all layers are
// merged, as Hadoop does at read time, and then checked against the table.
//
// Other packages never see viper or XML: they ask a *Config for plain
// values and build their own narrow option structs, using Config.ErrorFor
// to report a rule that spans several keys in the same one-line form.
//
// It imports no other ebb package: subsystems get narrow typed values from it, never the config library.
package conf
