# The layering rule of docs/ARCHITECTURE.md, checked: the studio and the CLI
# (app/, views/) reach the compiler through core/driver only, so they include
# nothing from core/ but driver/, ir/ and support/; and the programs that do
# not tune link no XGBoost (the tuner loads it as a module when it needs it).
#   cmake -DSOURCE_DIR=<repo> -DPROGRAMS=<exe>[,<exe>...] -P check_layering.cmake
cmake_minimum_required(VERSION 3.25)

set(allowed driver ir support)
# Every folder of core/ is a layer; a new one is covered without editing this.
file(GLOB core_entries RELATIVE ${SOURCE_DIR}/core ${SOURCE_DIR}/core/*)
set(forbidden)
foreach(entry IN LISTS core_entries)
  if(IS_DIRECTORY ${SOURCE_DIR}/core/${entry} AND NOT entry IN_LIST allowed)
    list(APPEND forbidden ${entry})
  endif()
endforeach()
list(JOIN forbidden "|" forbidden_alternatives)

# Messages must hold no ';': they are list elements.
set(problems)
file(GLOB_RECURSE clients RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/app/*.h ${SOURCE_DIR}/app/*.cpp
     ${SOURCE_DIR}/views/*.h ${SOURCE_DIR}/views/*.cpp)
foreach(client IN LISTS clients)
  file(STRINGS ${SOURCE_DIR}/${client} lines)
  set(line_number 0)
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[\"<]((${forbidden_alternatives})/[^\">]*)")
      list(APPEND problems
           "${client}:${line_number}: includes ${CMAKE_MATCH_1} (app/ and views/ reach core through driver/, ir/ and support/ only)")
    endif()
  endforeach()
endforeach()

string(REPLACE "," ";" programs "${PROGRAMS}")
foreach(program IN LISTS programs)
  # ldd lists every library the loader maps, NEEDED entries and theirs.
  execute_process(COMMAND ldd ${program} OUTPUT_VARIABLE libraries RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(APPEND problems "ldd ${program} failed (${rc})")
  elseif(libraries MATCHES "(libxgboost[^ \t\n]*)")
    list(APPEND problems
         "${program} links ${CMAKE_MATCH_1} (only the cost model's module liblathe_xgboost_ranker.so may)")
  endif()
endforeach()

if(problems)
  list(JOIN problems "\n" report)
  message(FATAL_ERROR "layering violated:\n${report}")
endif()
list(LENGTH clients num_clients)
list(LENGTH programs num_programs)
message(STATUS "layering: ${num_clients} files of app/ and views/, ${num_programs} programs checked")
