# readelf --debug-dump=info: the functions with code (DW_AT_low_pc or
# DW_AT_ranges, no DW_AT_declaration) of the compile units whose name matches re
function flush() {
	if (tag == "DW_TAG_compile_unit") cu = name
	else if (tag == "DW_TAG_subprogram" && depth == 1 && code && !decl && cu ~ re && name != "") print name
	tag = ""; name = ""; code = 0; decl = 0
}
/^ *<[0-9]+><[0-9a-f]+>: Abbrev Number/ {
	flush()
	depth = $1; sub(/^ *</, "", depth); sub(/>.*/, "", depth)
	tag = $NF; gsub(/[()]/, "", tag)
	next
}
/DW_AT_name / { name = $NF }
/DW_AT_low_pc|DW_AT_ranges/ { code = 1 }
/DW_AT_declaration/ { decl = 1 }
END { flush() }
