package docgen

import "github.com/ebb-am/ebb/conf"

// Config is docs/reference/config.md: every key ebb reads.
func Config() string {
	return Header("conf's key table (conf/keys.go)", Regenerate) +
		"# Configuration keys\n\n" +
		"ebb reads these keys from `mr3-site.xml` (found through `--conf`, then `$EBB_CONF_DIR`, then\n" +
		"`$HADOOP_CONF_DIR`), from `--set key=value` on the command line, and, for Hadoop's own keys, from\n" +
		"`core-site.xml`, `yarn-site.xml` and `hdfs-site.xml`. Keys that MR3 defines keep MR3's names; ebb's\n" +
		"own start with `ebb.`. An unknown `mr3.` or `ebb.` key is refused with the nearest known key; a bad\n" +
		"value is refused naming the key, the value and what is allowed. How layers override each other:\n" +
		"[operators.md](../operators.md#configuration).\n\n" +
		conf.Markdown()
}
