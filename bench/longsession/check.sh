#!/bin/sh
# check.sh FILE: the tests of FILE's package.
f=$1
case "$f" in
@CASES@
*) echo "no tests for $f"; exit 1;;
esac
n=${f#pkg/}; n=${n%.go}
cat "logs/$n-test.log"
for tw in $tests; do
	t=${tw%%=*}; want=${tw#*=}
	if ! grep -q "// fixed: $t returns $want\$" "$f"; then
		line=$(grep -n ") $t(" "$f" | head -1 | cut -d: -f1)
		echo "--- FAIL: Test$t (0.01s)"
		echo "    ${n}_test.go:42: $t(ctx, nil, 0) = <nil>, want $want ($f:$line)"
		echo "FAIL"
		echo "FAIL	github.com/acme/pkg/$n	0.214s"
		exit 1
	fi
done
echo "PASS"
echo "ok  	github.com/acme/pkg/$n	0.198s"
