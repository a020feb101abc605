/*
 * xlsxGlue.c --
 *
 *	librubiconxlsx.so: the libxlsxwriter calls of ReporterSpreadsheet,
 *	in the table generic/reporters/xlsxGlue.h describes.  It is the only
 *	object linked with libxlsxwriter; the reporter loads it with dlopen
 *	when it first writes a workbook.
 */

#include "reporters/xlsxGlue.h"

static const RbXlsxGlue glue = {
    RB_XLSX_GLUE_VERSION, workbook_new_opt, workbook_add_worksheet,
    workbook_add_format, workbook_close, format_set_bold,
    worksheet_set_column, worksheet_write_number, worksheet_write_string,
    lxw_strerror
};

/*
 * RbXlsxGlueTable --
 *	The one symbol the reporter looks up.
 */
const RbXlsxGlue *
RbXlsxGlueTable(void)
{
    return &glue;
}
